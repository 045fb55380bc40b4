package dev.baton.demo;

/**
 * The line a worker prints when it has finished the run without the lock: how many increments it did and how many
 * of them the resource caught overlapping another worker's.
 *
 * @param increments unsafe increments done, each without taking the lock
 * @param violations increments that found another worker already inside its GET/SET
 */
record UnlockedReport(int increments, int violations) implements WorkerMessage {

    @Override
    public String toLine() {
        return PREFIX + "unlocked-done increments=" + increments + " violations=" + violations;
    }
}
