package dev.baton.bench;

import dev.baton.test.RedisServer;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * The rate-limiter part of a run, on the run's one redis-server, Baton, Redisson and Bucket4j alike:
 * <ol>
 *   <li>the commands of single decisions, granted and refused, with MONITOR ({@link ProtocolTrace});</li>
 *   <li>scenarios (r1) {@link RateLimiterOneKeyBenchmark} and (r2) {@link RateLimiterManyKeysBenchmark} under JMH
 *       in forked JVMs, throughput and latency, with the commands per decision from {@code INFO commandstats}
 *       ({@link CommandAccounting});</li>
 *   <li>both scenarios again in this JVM, the contenders in alternating slices ({@link RateLimiterCrossCheck}), for
 *       ratios that a noisy minute cannot tilt;</li>
 *   <li>Redis memory per limiter, fresh and idle ({@link RateLimiterMemory}), which flushes the database.</li>
 * </ol>
 * Every failure is written to the report's anomalies; the other steps still run.
 */
final class RateLimiterRun {
    /** The memory measurement also weighs Redisson with the shortest keep-alive time it accepts. */
    static final List<String> MEMORY_CONTENDERS = List.of(RateLimiterContender.BATON, RateLimiterContender.REDISSON,
            RateLimiterContender.REDISSON_KEEP_ALIVE, RateLimiterContender.BUCKET4J);

    private RateLimiterRun() {
    }

    static void run(BenchMain.Settings settings, RedisServer server, Report report, Path outDir) {
        if (settings.trace) {
            for (String kind : RateLimiterContender.LIMITERS) {
                BenchMain.log("MONITOR trace of rate limiter " + kind);
                try {
                    report.rateTraces.add(ProtocolTrace.rateGranted(kind, server));
                    report.rateTraces.add(ProtocolTrace.rateRefused(kind, server));
                } catch (Exception | Error e) {
                    report.anomalies.add("MONITOR trace of rate limiter " + kind + " failed:\n"
                            + HandoffScenario.stackTrace(e));
                }
            }
        }

        if (settings.jmh) {
            BenchMain.log("JMH: rate-limiter scenarios (r1), (r2), " + settings.jmhSettings());
            BenchMain.runJmh(settings, server, report, outDir.resolve("bench-rate-commandstats.tsv"),
                    outDir.resolve("jmh-rate-result.json"), report::addRateJmh,
                    Map.of(RateLimiterManyKeysBenchmark.KEYS_PARAM, String.valueOf(settings.rateManyKeys())),
                    RateLimiterOneKeyBenchmark.class, RateLimiterManyKeysBenchmark.class);
            report.load("after rate-limiter JMH");
        }

        if (settings.crossCheck) {
            for (int keys : new int[] {1, settings.rateManyKeys()}) {
                String scenario = keys == 1 ? Report.R1 : Report.R2;
                BenchMain.log("cross-check of " + scenario + ": contenders in alternating "
                        + settings.crossCheckSlice().toMillis() + " ms slices");
                try {
                    report.rateCrossCheck.put(scenario, RateLimiterCrossCheck.run(server.uri(), server.pid(), keys,
                            settings.crossCheckSlices(), settings.rateCrossCheckWarmup(), settings.crossCheckSlice()));
                } catch (Exception | Error e) {
                    report.anomalies.add("cross-check of " + scenario + " failed:\n" + HandoffScenario.stackTrace(e));
                }
            }
        }

        for (String kind : MEMORY_CONTENDERS) {
            BenchMain.log("memory of " + settings.rateMemoryLimiters() + " rate limiters of " + kind);
            try {
                RateLimiterMemory.Result r = RateLimiterMemory.measure(kind, server, settings.rateMemoryLimiters(),
                        settings.rateMemoryIdle());
                report.rateMemory.add(r);
                BenchMain.log(String.format("  %.0f bytes/limiter fresh (%.2f keys), %.0f bytes/limiter idle"
                                + " (%.2f keys) after %d ms", r.freshBytesPerLimiter(), r.freshKeysPerLimiter(),
                        r.idleBytesPerLimiter(), r.idleKeysPerLimiter(), r.idleFor().toMillis()));
                if (!r.expiryPaused()) {
                    report.anomalies.add("memory of " + kind + ": the server refused DEBUG SET-ACTIVE-EXPIRE, so the"
                            + " fresh figure was taken with expiry running (short-lived keys may be missing)");
                }
                if (r.granted() != r.limiters()) {
                    report.anomalies.add("memory of " + kind + ": only " + r.granted() + " of " + r.limiters()
                            + " first requests to fresh limiters were granted");
                }
            } catch (Exception | Error e) {
                report.anomalies.add("memory of rate limiters of " + kind + " failed:\n"
                        + HandoffScenario.stackTrace(e));
            }
        }
    }
}
