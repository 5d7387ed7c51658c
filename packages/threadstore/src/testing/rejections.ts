/** The error `promise` rejects with; fails the test with `why` (what the store did wrong) when it resolves. */
export async function rejection(promise: Promise<unknown>, why = "expected the call to reject, but it resolved"): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error(why);
}

/**
 * The errors of calls started together, in call order. Waits for all of them at once, so a later
 * call that fails before an earlier one settles is never an unhandled rejection (a store on an
 * asynchronous backend fails its calls in any order). Fails the test when one resolves.
 */
export async function rejections(calls: readonly Promise<unknown>[]): Promise<unknown[]> {
  const settled = await Promise.allSettled(calls);
  return settled.map((result, i) => {
    if (result.status === "rejected") return result.reason as unknown;
    throw new Error(`expected call ${i + 1} of ${calls.length} to reject, but it resolved`);
  });
}
