package dev.baton.bench.spring;

/**
 * One JMH fork of one contender in one round (or one contender's calls of a smoke run, see
 * {@link SpringBenchRun#smoke}): the latency distribution of its guarded calls, one thread.
 *
 * @param benchmark  {@link SpringBenchRun#LOCKS} or {@link SpringBenchRun#RATE_LIMITS}
 * @param contender  the contender's name
 * @param round      the round, from 0
 * @param meanMicros the mean time of a call, µs
 * @param p50Micros  the median, µs
 * @param p99Micros  the 99th percentile, µs
 * @param calls      how many calls were sampled
 * @param costs      what a call cost over the whole trial, or null if not counted
 */
record Measurement(String benchmark, String contender, int round, double meanMicros, double p50Micros,
                   double p99Micros, long calls, Costs costs) {

    /**
     * What one call cost, averaged over a trial (see {@link TrialCheck}).
     *
     * @param commands        Redis commands per call, scripts' inner commands included
     * @param breakdown       per command, most frequent first, e.g. {@code "evalsha 1.00, get 1.00"}
     * @param clientCpuMicros CPU time of the benchmark JVM per call, µs
     * @param redisCpuMicros  CPU time of the Redis server per call, µs
     */
    record Costs(double commands, String breakdown, double clientCpuMicros, double redisCpuMicros) {
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
