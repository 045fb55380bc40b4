package dev.baton.spring.aop;

import dev.baton.Baton;
import dev.baton.DistributedLock;
import dev.baton.spring.LockKind;
import dev.baton.spring.WhenNotAcquired;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.function.Supplier;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.env.PropertyResolver;

/**
 * One {@link dev.baton.spring.DistributedLock @DistributedLock} method, with its attributes parsed and checked once:
 * the key and skip-result expressions, the durations (placeholders resolved), and the empty value a skipped call
 * returns. Immutable and thread-safe.
 */
final class LockSpec {
    static final String ANNOTATION = "@DistributedLock";

    private final String label;
    private final MethodExpression key;
    private final LockKind kind;
    private final Duration waitTime;
    private final Duration leaseTime;
    private final Duration minHoldTime;
    private final WhenNotAcquired whenNotAcquired;
    private final MethodExpression skipResult;
    private final Supplier<Object> emptyResult;

    private LockSpec(Method method, dev.baton.spring.DistributedLock annotation, AttributeReader attributes) {
        this.label = MethodLabel.of(method);
        this.key = MethodExpression.parse(attributes, method, "key", annotation.key());
        this.kind = annotation.kind();
        this.waitTime = attributes.duration("waitTime", annotation.waitTime());
        this.leaseTime = attributes.duration("leaseTime", annotation.leaseTime());
        this.minHoldTime = attributes.duration("minHoldTime", annotation.minHoldTime());
        this.whenNotAcquired = annotation.whenNotAcquired();
        this.skipResult = annotation.skipResult().isEmpty() ? null
                : MethodExpression.parse(attributes, method, "skipResult", annotation.skipResult());
        this.emptyResult = EmptyReturnValue.of(method.getReturnType());
        if (leaseTime != null && leaseTime.toNanos() < 1_000_000) {
            throw attributes.misuse("leaseTime", annotation.leaseTime(), "is shorter than 1ms (Redis' resolution); "
                    + "leave it empty for a lease the watchdog renews while the method runs", null);
        }
        if (skipResult != null && whenNotAcquired != WhenNotAcquired.SKIP) {
            throw attributes.misuse("skipResult", annotation.skipResult(), "only applies with whenNotAcquired = "
                    + "SKIP; remove it or set whenNotAcquired = WhenNotAcquired.SKIP", null);
        }
        ReturnStyle style = ReturnStyle.of(method);
        if (style.isAsynchronous()) {
            throw new AnnotationMisuseException(ANNOTATION + " on " + label + ": the method returns a "
                    + method.getReturnType().getSimpleName() + ", whose work runs after the method returned, on "
                    + "other threads, while this annotation holds the lock for the calling thread during the call. "
                    + "Take the lock inside the pipeline with Baton's lease API instead "
                    + "(baton.lock(name).acquireAsync(wait), release the lease when the work ends).");
        }
    }

    /**
     * Parses and checks a method's annotation.
     *
     * @param method      the annotated method
     * @param annotation  its annotation
     * @param environment resolves placeholders in durations
     * @return the spec
     * @throws AnnotationMisuseException if an attribute does not parse, or the method cannot hold a thread-bound lock
     */
    static LockSpec of(Method method, dev.baton.spring.DistributedLock annotation, PropertyResolver environment) {
        return new LockSpec(method, annotation, new AttributeReader(environment, ANNOTATION, method));
    }

    /**
     * Evaluates the key for one call.
     *
     * @return the lock's name
     * @throws IllegalArgumentException if the key evaluates to null or a blank string, or cannot be evaluated
     */
    String lockName(Object target, Object[] args, BeanFactory beanFactory) {
        return key.evaluateName(ANNOTATION, target, args, beanFactory);
    }

    /** @return the lock of that name and of this method's kind */
    DistributedLock lock(Baton baton, String name) {
        return switch (kind) {
            case MUTEX -> baton.lock(name);
            case FAIR -> baton.fairLock(name);
            case READ -> baton.readWriteLock(name).readLock();
            case WRITE -> baton.readWriteLock(name).writeLock();
        };
    }

    /** What a call returns that did not get the lock, with {@link WhenNotAcquired#SKIP}. */
    Object skippedResult(Object target, Object[] args, BeanFactory beanFactory) {
        return skipResult == null ? emptyResult.get() : skipResult.evaluate(target, args, beanFactory);
    }

    String label() {
        return label;
    }

    LockKind kind() {
        return kind;
    }

    /** @return the annotation's wait, or null for {@code baton.lock.wait-time} */
    Duration waitTime() {
        return waitTime;
    }

    /** @return the fixed lease, or null for the watchdog */
    Duration leaseTime() {
        return leaseTime;
    }

    /** @return the minimum hold time, or null for none */
    Duration minHoldTime() {
        return minHoldTime;
    }

    WhenNotAcquired whenNotAcquired() {
        return whenNotAcquired;
    }
}
