package dev.baton.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method of a Spring bean while holding a Baton lock, and releases it when the method returns or
 * throws.
 *
 * <pre>{@code
 * @DistributedLock(key = "'order:' + #orderId", waitTime = "5s")
 * public Receipt pay(String orderId) { ... }
 *
 * @Scheduled(cron = "0 0 3 * * *")
 * @DistributedLock(key = "'nightly-restock'", waitTime = "0", minHoldTime = "1m", whenNotAcquired = WhenNotAcquired.SKIP)
 * public void restock() { ... }          // one instance of the fleet runs it per period
 * }</pre>
 *
 * <p>The lock's name is {@link #key()} evaluated as a Spring Expression Language expression over the method's
 * arguments ({@code #name} for a parameter compiled with {@code -parameters}, or {@code #p0}, {@code #a0}), its
 * bean ({@code #root.target}) and the application's beans ({@code @beanName}). Inside the method, {@link LockContext}
 * gives the lease and its fencing token.
 *
 * <p>Misuse fails the application's start, naming the class and the method: an annotated method that Spring's
 * proxies cannot intercept (private, final, static, or in a final class that needs a class-based proxy), a key that
 * does not parse, a duration that does not parse, a method returning a {@code Mono}, {@code Flux} or
 * {@code CompletionStage} (a lock held by the calling thread cannot span work that runs later elsewhere; take a lease
 * inside the pipeline with {@code DistributedLock.acquireAsync} instead). A call from inside the same class
 * ({@code this.pay(...)}) would bypass the proxy, as with every Spring method annotation, and run unlocked: the
 * starter finds such calls in the class's bytecode at startup and fails, naming caller and callee; call the method
 * through the proxy (inject the bean into itself) or move it to another bean.
 *
 * <p>The lock is taken as a lease ({@code DistributedLock.acquire}), not per thread; a nested annotated method asking
 * for the same lock (same kind and name) on the same thread runs under the enclosing method's lease. A lease lost
 * while the method runs is logged when the method ends; the fencing token is what protects the resource then.
 *
 * <p>Durations ({@link #waitTime()}, {@link #leaseTime()}, {@link #minHoldTime()}) are written as Spring Boot
 * writes them in properties ({@code "500ms"}, {@code "5s"}, {@code "PT5S"}; a bare number is milliseconds) and may
 * hold property placeholders ({@code "${orders.lock-wait:5s}"}).
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface DistributedLock {

    /**
     * The lock's name as a SpEL expression, for example {@code "'order:' + #orderId"}; a constant name is a quoted
     * string: {@code "'nightly-restock'"}. It must evaluate to a non-blank value; {@code baton.namespace} is put in
     * front by Baton itself.
     *
     * @return the expression
     */
    String key();

    /**
     * Which lock: a plain reentrant mutex (the default), a fair (first come, first served) lock, or the read or
     * write side of a read-write lock of that name.
     *
     * @return the kind of lock
     */
    LockKind kind() default LockKind.MUTEX;

    /**
     * How long to wait for the lock; {@code "0"} tries once. Empty (the default) takes
     * {@code baton.lock.wait-time}.
     *
     * @return the longest wait, as a duration
     */
    String waitTime() default "";

    /**
     * A fixed lease: the lock expires this long after it was acquired even if the method is still running. Empty
     * (the default) means the watchdog keeps renewing the lease while the method runs, and a lost lease is reported
     * (see {@link LockContext#currentLease()}).
     *
     * @return the lease, as a duration, or empty for the watchdog
     */
    String leaseTime() default "";

    /**
     * Keep the lock at least this long after it was acquired, even if the method returned sooner: the lock is then
     * left to expire at acquisition + this time instead of being released (see {@code Lease.releaseAfter}); the
     * watchdog stops and the thread no longer holds it, but no other instance can take it before then. This keeps a
     * scheduled job to one run per period across a fleet whose clocks differ slightly (the ShedLock "lock at least
     * for" case). Empty (the default) releases at once.
     *
     * @return the minimum hold time, as a duration, or empty
     */
    String minHoldTime() default "";

    /**
     * What happens when the lock was not acquired within {@link #waitTime()}.
     *
     * @return the policy; {@link WhenNotAcquired#THROW} by default
     */
    WhenNotAcquired whenNotAcquired() default WhenNotAcquired.THROW;

    /**
     * With {@link WhenNotAcquired#SKIP}: a SpEL expression (over the same variables as {@link #key()}) whose value
     * the skipped method returns instead. Empty (the default) returns {@code null}, an empty {@code Optional},
     * collection, map or stream, or a primitive's zero, as fits the method's return type.
     *
     * @return the expression, or empty
     */
    String skipResult() default "";
}
