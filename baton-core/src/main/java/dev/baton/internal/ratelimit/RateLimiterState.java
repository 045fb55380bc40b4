package dev.baton.internal.ratelimit;

import dev.baton.BatonAdmin;
import dev.baton.RateLimit;
import dev.baton.internal.transport.HashTag;
import dev.baton.internal.transport.Script;
import dev.baton.internal.transport.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Operators' access to a rate limiter whose configuration they do not have ({@code BatonAdmin.rateLimiter},
 * {@code resetRateLimiter}): {@code rate-inspect.lua} reads what each limit's keys hold, which is enough since
 * {@code rate-decide.lua} stores every limit's permits and period with its state; {@code rate-reset.lua} deletes it
 * all at once. A limiter's limits are named by their position, so both scripts look at the first
 * {@value #POSITIONS} positions and each algorithm's keys there: all under the limiter's hash tag, one slot.
 */
public final class RateLimiterState {
    /** How many limit positions an operator's read or reset covers. */
    public static final int POSITIONS = 32;

    static final Script INSPECT = Script.list("rate-inspect");
    static final Script RESET = Script.integer("rate-reset");

    private RateLimiterState() {
    }

    /** Every limit of {@code name} that has state, by position. */
    public static CompletableFuture<List<BatonAdmin.LimitState>> read(Transport gateway, String namespace,
                                                                      String name) {
        return gateway.<List<Object>>run(INSPECT, keys(namespace, name)).thenApply(RateLimiterState::decode);
    }

    /** Deletes the state of every limit of {@code name}; the number of limits that had some. */
    public static CompletableFuture<Integer> reset(Transport gateway, String namespace, String name) {
        return gateway.<Long>run(RESET, keys(namespace, name)).thenApply(Long::intValue);
    }

    /** Four keys per position, in the order of rate-decide's key names: {@code <i>g <i>s <i>s:totals <i>f}. */
    static String[] keys(String namespace, String name) {
        String tag = HashTag.of(namespace, "rate", name);
        String[] keys = new String[POSITIONS * 4];
        for (int i = 0; i < POSITIONS; i++) {
            String key = tag + ":" + i;
            keys[4 * i] = key + "g";
            keys[4 * i + 1] = key + "s";
            keys[4 * i + 2] = key + "s:totals";
            keys[4 * i + 3] = key + "f";
        }
        return keys;
    }

    static List<BatonAdmin.LimitState> decode(List<Object> reply) {
        List<BatonAdmin.LimitState> limits = new ArrayList<>(reply.size());
        for (Object o : reply) {
            List<?> e = (List<?>) o;
            RateLimit.Algorithm algorithm = switch ((String) e.get(1)) {
                case "g" -> RateLimit.Algorithm.GCRA;
                case "s" -> RateLimit.Algorithm.SLIDING_WINDOW_LOG;
                default -> RateLimit.Algorithm.FIXED_WINDOW;
            };
            limits.add(new BatonAdmin.LimitState(((Long) e.get(0)).intValue(), algorithm, (Long) e.get(2),
                    Duration.ofNanos((Long) e.get(3) * 1000), (Long) e.get(4), (Long) e.get(5),
                    Duration.ofNanos((Long) e.get(6) * 1000)));
        }
        return limits;
    }
}
