package dev.baton.demo;

/**
 * The last line of a worker that completed its loop with the lock: what it did and what the fencing-aware resource
 * told it.
 *
 * @param acquisitions lock acquisitions completed
 * @param firstToken   fencing token of the first acquisition (0 if there was none)
 * @param lastToken    fencing token of the last acquisition (0 if there was none)
 * @param violations   acquisitions the resource found unsafe: another worker was inside at the same time, or the
 *                     token was not above every token the resource had seen before
 */
record WorkerReport(int acquisitions, long firstToken, long lastToken, int violations) implements WorkerMessage {

    @Override
    public String toLine() {
        return PREFIX + "done acquisitions=" + acquisitions + " first-token=" + firstToken + " last-token="
                + lastToken + " violations=" + violations;
    }
}
