package dev.baton.support;

import dev.baton.test.RedisServer;
import java.util.concurrent.TimeUnit;

/**
 * Small measurements shared by the tests: elapsed time, the exception a call threw, subscriber counts, scripts run.
 */
public final class Measure {
    private Measure() {
    }

    public static long millisSince(long startNanos) {
        return TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
    }

    /** The throwable the action threw, or null if it returned normally. */
    public static Throwable thrownBy(Runnable action) {
        try {
            action.run();
            return null;
        } catch (Throwable t) {
            return t;
        }
    }

    /** Subscribers of a channel, as Redis counts them: classic ({@code PUBSUB NUMSUB}) and sharded ones. */
    public static long subscribers(RedisServer server, String channel) {
        long classic = Long.parseLong(server.command("PUBSUB", "NUMSUB", channel).split("\n")[1]);
        // On a Cluster of Redis 7, Baton's waiters listen with SSUBSCRIBE, which only SHARDNUMSUB counts.
        return server.binary().version().startsWith("6.") ? classic
                : classic + Long.parseLong(server.command("PUBSUB", "SHARDNUMSUB", channel).split("\n")[1]);
    }

    /**
     * Scripts Redis has run since its stats were reset: EVALSHA and EVAL calls, less the EVALSHAs refused with
     * NOSCRIPT (each is followed by an EVAL of the same script).
     */
    public static long scriptsRun(RedisServer server) {
        return server.command("INFO", "commandstats").lines()
                .filter(l -> l.startsWith("cmdstat_evalsha:") || l.startsWith("cmdstat_eval:"))
                .mapToLong(l -> statsField(l, "calls") - statsField(l, "failed_calls")).sum();
    }

    private static long statsField(String statsLine, String name) {
        return Long.parseLong(statsLine.replaceAll("^.*[:,]" + name + "=(\\d+).*$", "$1"));
    }
}
