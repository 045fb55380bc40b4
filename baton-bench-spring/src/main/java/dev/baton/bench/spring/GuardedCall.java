package dev.baton.bench.spring;

/**
 * One contender's guarded call as a benchmark loop sees it: take the lock or the permit, do the work, let go. Written
 * once per contender so that every contender runs exactly the same loop.
 */
@FunctionalInterface
interface GuardedCall {
    /**
     * Makes one guarded call.
     *
     * @throws Exception whatever the contender throws; a benchmark fails on it
     */
    void call() throws Exception;
}
