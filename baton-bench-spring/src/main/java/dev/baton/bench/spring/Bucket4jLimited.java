package dev.baton.bench.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a bean method for {@link Bucket4jLimitInterceptor}: Bucket4j on Lettuce behind a plain Spring interceptor,
 * the nearest equivalent of {@code @RateLimited} built on the same Redis client as Baton.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Bucket4jLimited {
    /**
     * The bucket's key as a SpEL expression over the method's arguments, as {@code @RateLimited#key()}.
     *
     * @return the expression
     */
    String key();
}
