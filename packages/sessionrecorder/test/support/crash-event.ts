// The event the crash writer appends as sequence `n`: its size varies (most are small, every
// fifth is ~256 KiB, so some appends take long enough in write(2) for a kill to tear them).
export function crashEvent(n: number): { type: string; n: number; pad: string } {
  const size = n % 5 === 0 ? 256 * 1024 + (n % 97) : 40 + ((n * 37) % 1500);
  return { type: "crash-test", n, pad: String.fromCharCode(97 + (n % 26)).repeat(size) };
}
