package dev.baton.spring.aop;

import dev.baton.RateLimit;
import dev.baton.RateLimitDecision;
import dev.baton.RateLimitExceededException;
import dev.baton.spring.Limit;
import dev.baton.spring.RateLimited;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.core.env.PropertyResolver;

/**
 * One {@link RateLimited @RateLimited} method, with its attributes parsed and checked once: the key expression, the
 * limits (placeholders resolved, each built as Baton builds a {@link RateLimit}), the cost, fail-open, and how the
 * method's result relates to its work. Immutable and thread-safe.
 */
final class RateLimitSpec {
    static final String ANNOTATION = "@RateLimited";

    private final String label;
    private final MethodExpression key;
    private final List<RateLimit> limits;
    private final long cost;
    private final Boolean failOpen;
    private final ReturnStyle style;

    private RateLimitSpec(Method method, RateLimited annotation, AttributeReader attributes) {
        this.label = MethodLabel.of(method);
        this.key = MethodExpression.parse(attributes, method, "key", annotation.key());
        this.limits = limits(annotation.limits(), attributes);
        this.cost = annotation.cost();
        this.failOpen = attributes.bool("failOpen", annotation.failOpen());
        this.style = ReturnStyle.of(method);
        long smallestBurst = limits.stream().mapToLong(RateLimit::burst).min().orElseThrow();
        if (cost < 1 || cost > smallestBurst) {
            throw attributes.misuse("cost", Long.toString(cost), "must be from 1 to the smallest burst of the "
                    + "limits (" + smallestBurst + ")", null);
        }
        if (style == ReturnStyle.OTHER_PUBLISHER) {
            throw new AnnotationMisuseException(ANNOTATION + " on " + label + ": the method returns a "
                    + method.getReturnType().getName() + "; only Reactor's Mono and Flux, a CompletionStage or a "
                    + "plain value can be charged when their work runs");
        }
    }

    /**
     * Parses and checks a method's annotation.
     *
     * @param method      the annotated method
     * @param annotation  its annotation
     * @param environment resolves placeholders in periods and fail-open
     * @return the spec
     * @throws AnnotationMisuseException if an attribute does not parse or the limits are not valid
     */
    static RateLimitSpec of(Method method, RateLimited annotation, PropertyResolver environment) {
        return new RateLimitSpec(method, annotation, new AttributeReader(environment, ANNOTATION, method));
    }

    private static List<RateLimit> limits(Limit[] annotated, AttributeReader attributes) {
        if (annotated.length == 0) {
            throw attributes.misuse("limits", "{}", "is empty; give at least one @Limit(permits = ..., period = ...)",
                    null);
        }
        List<RateLimit> limits = new ArrayList<>(annotated.length);
        for (int i = 0; i < annotated.length; i++) {
            Limit limit = annotated[i];
            String attribute = "limits[" + i + "].period";
            Duration period = attributes.duration(attribute, limit.period());
            if (period == null || period.isZero()) {
                throw attributes.misuse(attribute, limit.period(), "must be a positive duration", null);
            }
            try {
                RateLimit.Builder builder = RateLimit.builder(limit.permits(), period).algorithm(limit.algorithm());
                if (limit.burst() != 0) {
                    builder.burst(limit.burst());
                }
                limits.add(builder.build());
            } catch (IllegalArgumentException e) {
                throw attributes.misuse("limits[" + i + "]", "@Limit(permits = " + limit.permits() + ", period = "
                        + limit.period() + ", burst = " + limit.burst() + ")", "is not a valid limit: "
                        + e.getMessage(), e);
            }
        }
        return List.copyOf(limits);
    }

    /**
     * Evaluates the key for one call.
     *
     * @return the limiter's name
     * @throws IllegalArgumentException if the key evaluates to null or a blank string, or cannot be evaluated
     */
    String limiterName(Object target, Object[] args, BeanFactory beanFactory) {
        return key.evaluateName(ANNOTATION, target, args, beanFactory);
    }

    /**
     * The exception of a refused call: it names the limiter and the method, never an argument.
     *
     * @param name     the limiter's name
     * @param decision the refusal
     * @return the exception
     */
    RateLimitExceededException refused(String name, RateLimitDecision decision) {
        return new RateLimitExceededException("rate limiter '" + name + "' refused a call of " + label + " ("
                + decision.limit() + "); retry after " + decision.retryAfterSeconds() + "s", decision);
    }

    List<RateLimit> limits() {
        return limits;
    }

    long cost() {
        return cost;
    }

    /** @return the annotation's fail-open, or null for {@code baton.rate-limit.fail-open} */
    Boolean failOpen() {
        return failOpen;
    }

    ReturnStyle style() {
        return style;
    }
}
