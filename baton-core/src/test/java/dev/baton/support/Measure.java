package dev.baton.support;

import dev.baton.test.RedisServer;
import java.util.concurrent.TimeUnit;

/** Small measurements shared by the tests: elapsed time, the exception a call threw, subscriber counts. */
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

    /** Subscribers of a channel, as Redis counts them (PUBSUB NUMSUB). */
    public static long subscribers(RedisServer server, String channel) {
        return Long.parseLong(server.command("PUBSUB", "NUMSUB", channel).split("\n")[1]);
    }
}
