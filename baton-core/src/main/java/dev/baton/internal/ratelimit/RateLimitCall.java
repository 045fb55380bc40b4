package dev.baton.internal.ratelimit;

import dev.baton.RateLimit;
import dev.baton.RateLimitDecision;
import dev.baton.internal.transport.HashTag;
import dev.baton.internal.transport.Script;
import dev.baton.internal.transport.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The {@code rate-decide.lua} call of one limiter: its keys and per-limit arguments, computed once, and the one
 * place where the script's reply becomes a {@link RateLimitDecision}. Key layout: docs/key-layout.md.
 */
final class RateLimitCall {
    static final Script DECIDE = Script.list("rate-decide");

    private final List<RateLimit> limits;
    private final String[] keys;
    /** The algorithm of each limit, one letter each ({@code ARGV[4]}), then each limit's three numbers. */
    private final String algorithms;
    private final String[] limitArgs;
    /** The arguments of the most common calls, {@code tryAcquire()} and {@code peek()}: built once. */
    private final String[] takeOne;
    private final String[] peekOne;

    /** The script's answer: the decision, and for an admitted reservation how long until it is due. */
    record Reply(RateLimitDecision decision, long waitMicros) {
    }

    RateLimitCall(String namespace, String name, List<RateLimit> limits) {
        this.limits = limits;
        String tag = HashTag.of(namespace, "rate", name);
        List<String> keyList = new ArrayList<>();
        StringBuilder letters = new StringBuilder();
        this.limitArgs = new String[limits.size() * 3];
        for (int i = 0; i < limits.size(); i++) {
            RateLimit limit = limits.get(i);
            String key = tag + ":" + i;
            String algorithm = switch (limit.algorithm()) {
                case GCRA -> "g";
                case SLIDING_WINDOW_LOG -> "s";
                case FIXED_WINDOW -> "f";
            };
            keyList.add(key + algorithm);
            if (limit.algorithm() == RateLimit.Algorithm.SLIDING_WINDOW_LOG) {
                keyList.add(key + "s:totals");
            }
            letters.append(algorithm);
            limitArgs[i * 3] = Long.toString(limit.permits());
            limitArgs[i * 3 + 1] = Long.toString(micros(limit.period()));
            limitArgs[i * 3 + 2] = Long.toString(limit.burst());
        }
        this.algorithms = letters.toString();
        this.keys = keyList.toArray(String[]::new);
        this.takeOne = build(true, 1, 0);
        this.peekOne = build(false, 1, 0);
    }

    String[] keys() {
        return keys;
    }

    /**
     * Sends one decision. The raw reply is returned rather than parsed here, so that a blocking caller parses it in
     * its own thread with {@link #parse} instead of on Lettuce's event loop, which serves every caller.
     */
    CompletableFuture<List<Object>> send(Transport gateway, boolean take, long permits, long maxWaitMicros) {
        return gateway.run(DECIDE, keys, args(take, permits, maxWaitMicros));
    }

    /** The script's arguments; callers must not modify the array (the common ones are shared). */
    String[] args(boolean take, long permits, long maxWaitMicros) {
        if (permits == 1 && maxWaitMicros == 0) {
            return take ? takeOne : peekOne;
        }
        return build(take, permits, maxWaitMicros);
    }

    private String[] build(boolean take, long permits, long maxWaitMicros) {
        String[] args = new String[4 + limitArgs.length];
        args[0] = take ? "take" : "peek";
        args[1] = Long.toString(permits);
        args[2] = Long.toString(maxWaitMicros);
        args[3] = algorithms;
        System.arraycopy(limitArgs, 0, args, 4, limitArgs.length);
        return args;
    }

    Reply parse(List<Object> reply) {
        long remaining = (Long) reply.get(1);
        Duration reset = micros((Long) reply.get(3));
        // With several limits the script adds the binding limit's own numbers; with one they are the decision's.
        boolean several = reply.size() > 6;
        RateLimitDecision decision = new RateLimitDecision((Long) reply.get(0) == 1, remaining,
                micros((Long) reply.get(2)), reset, limits.get((int) (long) (Long) reply.get(5) - 1), false,
                several ? (Long) reply.get(6) : remaining, several ? micros((Long) reply.get(7)) : reset);
        return new Reply(decision, (Long) reply.get(4));
    }

    private static Duration micros(long micros) {
        return Duration.ofNanos(micros * 1000);
    }

    /** What a fail-open limiter answers when Redis cannot be asked: granted, uncounted, nothing known (0 remaining). */
    RateLimitDecision failedOpen() {
        RateLimit first = limits.get(0);
        return new RateLimitDecision(true, 0, Duration.ZERO, Duration.ZERO, first, true);
    }

    static long micros(Duration d) {
        return d.getSeconds() * 1_000_000 + d.getNano() / 1000;
    }
}
