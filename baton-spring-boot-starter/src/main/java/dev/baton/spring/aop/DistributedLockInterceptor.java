package dev.baton.spring.aop;

import dev.baton.Baton;
import dev.baton.DistributedLock;
import dev.baton.Lease;
import dev.baton.LockTimeoutException;
import dev.baton.spring.BatonProperties;
import dev.baton.spring.LockContext;
import dev.baton.spring.LockKind;
import dev.baton.spring.LockNotAcquiredException;
import dev.baton.spring.WhenNotAcquired;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Objects;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.env.PropertyResolver;

/**
 * Runs a {@link dev.baton.spring.DistributedLock @DistributedLock} method under its lock: evaluates the key, acquires
 * a lease of the method's kind of lock within the wait, makes it current in {@link LockContext} while the method runs,
 * and releases it afterwards, or leaves it to expire at the minimum hold time. A nested call for a lock this thread
 * already holds through an enclosing annotated method (same kind, same name) runs under that lease, as a reentrant
 * lock would.
 *
 * <p>Failure behaviour: not acquired in time, {@link WhenNotAcquired#THROW} throws {@link LockNotAcquiredException}
 * naming the lock and the wait; {@link WhenNotAcquired#SKIP} returns the skip result without running the method. An
 * interrupt while waiting restores the thread's interrupt flag and throws {@link LockNotAcquiredException}. A key that
 * evaluates to null or blank throws {@link IllegalArgumentException}. Redis failures propagate as Baton's exceptions.
 * A release that fails after the method ran (the lease was lost meanwhile, or Redis is unreachable) is logged, not
 * thrown: the method's own outcome stands, and the lock expires with its lease. Thread-safe.
 */
public final class DistributedLockInterceptor implements MethodInterceptor {
    private static final Logger log = LoggerFactory.getLogger(DistributedLockInterceptor.class);

    /** The locks this thread holds through annotated methods, innermost first. */
    private static final ThreadLocal<Deque<Held>> HELD = ThreadLocal.withInitial(ArrayDeque::new);

    private final ObjectProvider<Baton> baton;
    private final ObjectProvider<BatonProperties> properties;
    private final BeanFactory beanFactory;
    private final AnnotatedMethods<dev.baton.spring.DistributedLock, LockSpec> specs;

    /**
     * The providers are only asked at the first call, so that creating the interceptor (early, with the other
     * infrastructure of the context) creates neither Baton nor the bound properties.
     *
     * @param baton       the application's Baton
     * @param properties  the {@code baton.*} properties (the default wait)
     * @param beanFactory resolves {@code @beanName} in expressions
     * @param environment resolves placeholders in the annotations' durations
     */
    public DistributedLockInterceptor(ObjectProvider<Baton> baton, ObjectProvider<BatonProperties> properties,
                                      BeanFactory beanFactory, PropertyResolver environment) {
        this.baton = Objects.requireNonNull(baton, "baton");
        this.properties = Objects.requireNonNull(properties, "properties");
        this.beanFactory = beanFactory;
        Objects.requireNonNull(environment, "environment");
        this.specs = new AnnotatedMethods<>(dev.baton.spring.DistributedLock.class,
                (method, annotation) -> LockSpec.of(method, annotation, environment));
    }

    /** @return the parsed annotations, which the startup checks fill */
    AnnotatedMethods<dev.baton.spring.DistributedLock, LockSpec> specs() {
        return specs;
    }

    /**
     * Runs the call under its lock.
     *
     * @param invocation the call
     * @return the method's result, or the skip result
     * @throws Throwable what the method throws, or the failures described on the class
     */
    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        LockSpec spec = specs.of(invocation);
        Object target = invocation.getThis();
        Object[] args = invocation.getArguments();
        String name = spec.lockName(target, args, beanFactory);
        Baton batonOfCall = baton.getObject();
        Deque<Held> held = HELD.get();
        for (Held h : held) {
            if (h.baton() == batonOfCall && h.kind() == spec.kind() && h.name().equals(name)) {
                return proceed(invocation, held, h);
            }
        }
        Duration wait = spec.waitTime() != null ? spec.waitTime() : properties.getObject().getLock().getWaitTime();
        Lease lease = acquire(spec.lock(batonOfCall, name), name, wait, spec);
        if (lease == null) {
            if (spec.whenNotAcquired() == WhenNotAcquired.SKIP) {
                log.debug("skipped {}: lock '{}' was not acquired within {}", spec.label(), name, wait);
                return spec.skippedResult(target, args, beanFactory);
            }
            throw new LockNotAcquiredException(name, wait, "lock '" + name + "' was not acquired within " + wait + " by "
                    + spec.label());
        }
        long acquiredAt = System.nanoTime();
        try {
            return proceed(invocation, held, new Held(batonOfCall, spec.kind(), name, lease));
        } finally {
            end(lease, spec, acquiredAt);
        }
    }

    private static Object proceed(MethodInvocation invocation, Deque<Held> held, Held entry) throws Throwable {
        held.push(entry);
        try (LockContext.Scope scope = LockContext.open(entry.lease())) {
            return invocation.proceed();
        } finally {
            held.pop();
            if (held.isEmpty()) {
                HELD.remove();
            }
        }
    }

    /** @return the lease, or null if the wait ran out */
    private static Lease acquire(DistributedLock lock, String name, Duration wait, LockSpec spec) {
        try {
            if (spec.leaseTime() == null) {
                try {
                    return lock.acquire(wait);
                } catch (LockTimeoutException timedOut) {
                    return null;
                }
            }
            return lock.tryAcquire(wait, spec.leaseTime()).orElse(null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LockNotAcquiredException(name, "interrupted while " + spec.label() + " waited for lock '"
                    + name + "'", e);
        }
    }

    /**
     * Releases the lease, or, with a minimum hold time not yet reached, leaves the lock to expire when it is: the
     * watchdog stops and this thread no longer holds it, but nobody else can take it before then.
     */
    private static void end(Lease lease, LockSpec spec, long acquiredAt) {
        try {
            Duration rest = spec.minHoldTime() == null ? Duration.ZERO
                    : spec.minHoldTime().minusNanos(System.nanoTime() - acquiredAt);
            if (rest.isNegative() || rest.isZero()) {
                lease.release();
            } else {
                lease.releaseAfter(rest);
            }
        } catch (RuntimeException e) { // never mask the method's own outcome
            log.warn("{} ran under lock '{}' (fencing token {}), which could not be released: {}", spec.label(),
                    lease.lockName(), lease.fencingToken(), e.getMessage());
        }
    }

    /**
     * A lock this thread holds through an annotated method, and the Baton it holds it through (two application
     * contexts in one JVM have two, whose locks of one name are not the same hold).
     */
    private record Held(Baton baton, LockKind kind, String name, Lease lease) {
    }
}
