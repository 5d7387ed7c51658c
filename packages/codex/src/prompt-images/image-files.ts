import type { PromptImage } from "@adaptor/driver";
import type { RunFiles } from "./run-files.js";

/**
 * The file codex is handed for each prompt image, in order (`--image` of exec, a `localImage`
 * input of app-server): the user's own file where the prompt gave the image as a path and
 * `usable(path)` allows it, else a copy of its bytes among the run's `files`. codex reads the file
 * when the turn starts (again, for the user's file) and shows the model each image between
 * `<image name=[Image #n] path="<file>">` and `</image>` texts, so the model can tell the images
 * apart by number and sees the user's path for a file the user named.
 */
export async function promptImageFiles(
  images: readonly PromptImage[] | undefined,
  files: RunFiles,
  usable: (path: string) => boolean = () => true,
): Promise<string[]> {
  const paths: string[] = [];
  for (const image of images ?? []) {
    paths.push(
      image.path !== undefined && usable(image.path)
        ? image.path
        : await files.write(`image.${image.mimeType.slice("image/".length)}`, image.data),
    );
  }
  return paths;
}

/** Whether `codex exec --image=<path>` takes `path` as one file: codex splits the value at commas. */
export function execImagePath(path: string): boolean {
  return !path.includes(",");
}
