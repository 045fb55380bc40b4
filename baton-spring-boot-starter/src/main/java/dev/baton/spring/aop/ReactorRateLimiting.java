package dev.baton.spring.aop;

import dev.baton.RateLimitDecision;
import dev.baton.RateLimitExceededException;
import dev.baton.RateLimiter;
import java.util.concurrent.Callable;
import java.util.function.Function;
import org.reactivestreams.Publisher;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/**
 * Charges a limiter when a Reactor publisher is subscribed, without blocking: the decision comes from
 * {@link RateLimiter#tryAcquireAsync(long)}, the method's own publisher is built and subscribed only when it is
 * allowed, and a refusal is the publisher's error. Each subscription is charged (and runs the method) anew. Only
 * loaded when Reactor is on the class path.
 */
final class ReactorRateLimiting {

    private ReactorRateLimiting() {
    }

    /**
     * @param limiter the limiter to charge
     * @param cost    the permits per subscription
     * @param refused the error of a refusal
     * @param call    runs the method, returning its publisher
     * @return a Mono that is charged on subscription
     */
    static Mono<Object> mono(RateLimiter limiter, long cost,
                             Function<RateLimitDecision, RateLimitExceededException> refused,
                             Callable<Object> call) {
        return decision(limiter, cost)
                .flatMap(d -> d.allowed() ? Mono.from(publisher(call)) : Mono.error(refused.apply(d)));
    }

    /**
     * @param limiter the limiter to charge
     * @param cost    the permits per subscription
     * @param refused the error of a refusal
     * @param call    runs the method, returning its publisher
     * @return a Flux that is charged on subscription
     */
    static Flux<Object> flux(RateLimiter limiter, long cost,
                             Function<RateLimitDecision, RateLimitExceededException> refused,
                             Callable<Object> call) {
        return decision(limiter, cost)
                .flatMapMany(d -> d.allowed() ? Flux.from(publisher(call)) : Flux.error(refused.apply(d)));
    }

    private static Mono<RateLimitDecision> decision(RateLimiter limiter, long cost) {
        return Mono.fromFuture(() -> limiter.tryAcquireAsync(cost));
    }

    @SuppressWarnings("unchecked")
    private static Publisher<Object> publisher(Callable<Object> call) {
        try {
            Publisher<Object> result = (Publisher<Object>) call.call();
            return result != null ? result : Mono.empty();
        } catch (Exception e) {
            return Mono.error(e);
        }
    }
}
