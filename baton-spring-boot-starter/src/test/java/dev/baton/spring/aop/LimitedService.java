package dev.baton.spring.aop;

import dev.baton.spring.Limit;
import dev.baton.spring.RateLimited;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

/** A bean with one {@code @RateLimited} method per case under test; counts how often the bodies ran. */
public class LimitedService {

    private final AtomicInteger ran = new AtomicInteger();

    /** @return how often a body ran (a method, so that it reaches the bean through its proxy) */
    public AtomicInteger ran() {
        return ran;
    }

    @RateLimited(key = "'user:' + #user", limits = @Limit(permits = 3, period = "1m"))
    public String call(String user) {
        ran.incrementAndGet();
        return "ok";
    }

    @RateLimited(key = "'cost:' + #user", limits = @Limit(permits = 5, period = "1m"), cost = 2)
    public String costly(String user) {
        return "ok";
    }

    @RateLimited(key = "'multi:' + #user", limits = {
            @Limit(permits = 5, period = "1m"),
            @Limit(permits = 2, period = "${test.short-period:10s}")})
    public String multi(String user) {
        return "ok";
    }

    @RateLimited(key = "'open'", limits = @Limit(permits = 100, period = "1m"), failOpen = "true")
    public String open() {
        return "ok";
    }

    @RateLimited(key = "'closed'", limits = @Limit(permits = 100, period = "1m"), failOpen = "${test.fail-open:false}")
    public String closed() {
        return "ok";
    }

    @RateLimited(key = "'mono:' + #user", limits = @Limit(permits = 1, period = "1m"))
    public Mono<String> mono(String user) {
        return Mono.fromSupplier(() -> {
            ran.incrementAndGet();
            return "ok";
        });
    }

    @RateLimited(key = "'flux:' + #user", limits = @Limit(permits = 1, period = "1m"))
    public Flux<String> flux(String user) {
        ran.incrementAndGet();
        return Flux.just("a", "b");
    }

    @RateLimited(key = "'future:' + #user", limits = @Limit(permits = 1, period = "1m"))
    public CompletableFuture<String> future(String user) {
        ran.incrementAndGet();
        return CompletableFuture.completedFuture("ok");
    }
}
