package dev.baton.spring.aop;

import dev.baton.RateLimitDecision;
import dev.baton.RateLimiter;
import dev.baton.spring.BatonProperties;
import dev.baton.spring.RateLimiterRegistry;
import dev.baton.spring.RateLimited;
import java.lang.reflect.UndeclaredThrowableException;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.ProxyMethodInvocation;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.env.PropertyResolver;

/**
 * Charges a {@link RateLimited @RateLimited} method's limiter before the method runs: the limiter of the key's name
 * comes from the {@link RateLimiterRegistry} with the annotation's limits, and is asked for {@code cost} permits
 * without waiting. A refusal throws {@link dev.baton.RateLimitExceededException} carrying the decision (the web layer
 * turns it into a 429). With fail-open, a call Redis cannot check goes ahead.
 *
 * <p>A method returning a Reactor {@code Mono} or {@code Flux} is charged when its result is subscribed, through
 * {@link RateLimiter#tryAcquireAsync(long)}, so an event loop never blocks; a refusal is the publisher's error, and
 * the method itself runs only once the charge is allowed (again for each subscription). A method returning a
 * {@link CompletionStage} is charged at the call without blocking; the method then runs on the thread that completed
 * the decision (a Baton callback thread, or the caller's when the decision was immediate), and a refusal completes the
 * returned stage exceptionally. Thread-safe.
 */
public final class RateLimitedInterceptor implements MethodInterceptor {

    private final ObjectProvider<RateLimiterRegistry> registry;
    private final ObjectProvider<BatonProperties> properties;
    private final BeanFactory beanFactory;
    private final AnnotatedMethods<RateLimited, RateLimitSpec> specs;

    /**
     * The providers are only asked at the first call, so that creating the interceptor (early, with the other
     * infrastructure of the context) creates neither the registry nor the bound properties.
     *
     * @param registry    the limiters
     * @param properties  the {@code baton.*} properties (the default fail-open)
     * @param beanFactory resolves {@code @beanName} in expressions
     * @param environment resolves placeholders in the annotations' periods and fail-open
     */
    public RateLimitedInterceptor(ObjectProvider<RateLimiterRegistry> registry,
                                  ObjectProvider<BatonProperties> properties, BeanFactory beanFactory,
                                  PropertyResolver environment) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.properties = Objects.requireNonNull(properties, "properties");
        this.beanFactory = beanFactory;
        Objects.requireNonNull(environment, "environment");
        this.specs = new AnnotatedMethods<>(RateLimited.class,
                (method, annotation) -> RateLimitSpec.of(method, annotation, environment));
    }

    /** @return the parsed annotations, which the startup checks fill */
    AnnotatedMethods<RateLimited, RateLimitSpec> specs() {
        return specs;
    }

    /**
     * Charges the limiter, then runs the call.
     *
     * @param invocation the call
     * @return the method's result (for a reactive or asynchronous method, one that is charged when its work runs)
     * @throws Throwable what the method throws, {@link dev.baton.RateLimitExceededException} when refused, or
     *                   {@link dev.baton.BatonUnavailableException} when Redis cannot answer and the call does not
     *                   fail open
     */
    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        RateLimitSpec spec = specs.of(invocation);
        String name = spec.limiterName(invocation.getThis(), invocation.getArguments(), beanFactory);
        RateLimiter limiter = registry.getObject().limiter(name, spec.limits());
        boolean failOpen = spec.failOpen() != null ? spec.failOpen()
                : properties.getObject().getRateLimit().isFailOpen();
        if (failOpen) {
            limiter = limiter.failOpen();
        }
        return switch (spec.style()) {
            case BLOCKING -> {
                RateLimitDecision decision = limiter.tryAcquire(spec.cost());
                if (!decision.allowed()) {
                    throw spec.refused(name, decision);
                }
                yield invocation.proceed();
            }
            case MONO -> ReactorRateLimiting.mono(limiter, spec.cost(), d -> spec.refused(name, d),
                    later(invocation));
            case FLUX -> ReactorRateLimiting.flux(limiter, spec.cost(), d -> spec.refused(name, d),
                    later(invocation));
            case COMPLETION_STAGE -> {
                Callable<Object> call = later(invocation);
                CompletableFuture<RateLimitDecision> decision = limiter.tryAcquireAsync(spec.cost());
                yield decision.thenCompose(d -> {
                    if (!d.allowed()) {
                        throw new CompletionException(spec.refused(name, d));
                    }
                    try {
                        return (CompletionStage<?>) call.call();
                    } catch (RuntimeException e) {
                        throw e;
                    } catch (Exception e) {
                        throw new CompletionException(e);
                    }
                });
            }
            case OTHER_PUBLISHER -> throw new IllegalStateException("unreachable: refused at startup");
        };
    }

    /**
     * The rest of the call, to run later and possibly more than once (once per subscription): each run proceeds on a
     * clone of the invocation, since an invocation can proceed only once.
     */
    private static Callable<Object> later(MethodInvocation invocation) {
        if (!(invocation instanceof ProxyMethodInvocation proxied)) {
            throw new IllegalStateException("an asynchronous @RateLimited method needs a Spring AOP proxy invocation, "
                    + "not " + invocation.getClass().getName());
        }
        return () -> {
            try {
                return proxied.invocableClone().proceed();
            } catch (Exception | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new UndeclaredThrowableException(t);
            }
        };
    }
}
