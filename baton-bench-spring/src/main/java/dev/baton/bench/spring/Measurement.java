package dev.baton.bench.spring;

/**
 * One JMH fork of one contender in one round: the latency distribution of its guarded calls, one thread.
 *
 * @param benchmark  {@link SpringBenchRun#LOCKS} or {@link SpringBenchRun#RATE_LIMITS}
 * @param contender  the contender's name
 * @param round      the round, from 0
 * @param meanMicros the mean time of a call, µs
 * @param p50Micros  the median, µs
 * @param p99Micros  the 99th percentile, µs
 * @param calls      how many calls were sampled
 * @param commands   Redis commands per call over the whole trial and their breakdown, or null if not counted
 */
record Measurement(String benchmark, String contender, int round, double meanMicros, double p50Micros,
                   double p99Micros, long calls, Commands commands) {

    /**
     * Redis commands per call, scripts' inner commands included.
     *
     * @param perCall   all commands per call
     * @param breakdown per command, most frequent first, e.g. {@code "evalsha 1.00, get 1.00"}
     */
    record Commands(double perCall, String breakdown) {
    }

    /**
     * Calls per second of one thread calling back to back: the inverse of the mean.
     *
     * @return calls per second
     */
    double callsPerSecond() {
        return 1e6 / meanMicros;
    }
}
