package dev.baton.spring.aop;

import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Objects;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.core.env.PropertyResolver;

/**
 * Reads the string attributes of the annotations that are not SpEL (durations, booleans) the way Spring Boot reads
 * properties: {@code ${...}} placeholders resolved from the application's environment, durations in Boot's formats
 * ({@code "500ms"}, {@code "5s"}, {@code "PT5S"}, a bare number of milliseconds). Every failure is an
 * {@link AnnotationMisuseException} naming the annotation, the method, the attribute and the value. Thread-safe if the
 * resolver is.
 */
final class AttributeReader {

    private final PropertyResolver environment;
    private final String annotation;
    private final Method method;

    /**
     * @param environment resolves placeholders
     * @param annotation  the annotation's simple name, for messages ({@code "@DistributedLock"})
     * @param method      the annotated method, for messages
     */
    AttributeReader(PropertyResolver environment, String annotation, Method method) {
        this.environment = Objects.requireNonNull(environment, "environment");
        this.annotation = annotation;
        this.method = method;
    }

    /**
     * @param attribute the attribute's name
     * @param value     its value as written
     * @return the duration, or null when the value (after placeholders) is empty
     * @throws AnnotationMisuseException if a placeholder cannot be resolved, the value is not a duration, or it is
     *                                   negative
     */
    Duration duration(String attribute, String value) {
        String resolved = resolve(attribute, value);
        if (resolved.isEmpty()) {
            return null;
        }
        Duration parsed;
        try {
            parsed = DurationStyle.detectAndParse(resolved);
        } catch (RuntimeException e) {
            throw misuse(attribute, value, "is not a duration (write it as \"500ms\", \"5s\", \"PT5S\" or a number "
                    + "of milliseconds)", e);
        }
        if (parsed.isNegative()) {
            throw misuse(attribute, value, "is negative", null);
        }
        return parsed;
    }

    /**
     * @param attribute the attribute's name
     * @param value     its value as written
     * @return the boolean, or null when the value (after placeholders) is empty
     * @throws AnnotationMisuseException if a placeholder cannot be resolved or the value is neither true nor false
     */
    Boolean bool(String attribute, String value) {
        String resolved = resolve(attribute, value);
        if (resolved.isEmpty()) {
            return null;
        }
        if (resolved.equalsIgnoreCase("true") || resolved.equalsIgnoreCase("false")) {
            return Boolean.valueOf(resolved);
        }
        throw misuse(attribute, value, "is neither true nor false", null);
    }

    /**
     * @param attribute the attribute's name
     * @param value     its value as written
     * @return the value with its placeholders resolved, trimmed (empty if it was empty)
     * @throws AnnotationMisuseException if a placeholder cannot be resolved
     */
    String text(String attribute, String value) {
        return resolve(attribute, value);
    }

    /**
     * A failure of one attribute, worded like the others.
     *
     * @param attribute the attribute's name
     * @param value     its value as written, quoted in the message (annotation values are code, never secrets)
     * @param problem   what is wrong with it
     * @param cause     the underlying failure, or null
     * @return the exception to throw
     */
    AnnotationMisuseException misuse(String attribute, String value, String problem, Throwable cause) {
        return new AnnotationMisuseException(annotation + " on " + MethodLabel.of(method) + ": " + attribute + " = \""
                + value + "\" " + problem, cause);
    }

    private String resolve(String attribute, String value) {
        try {
            return environment.resolveRequiredPlaceholders(value).trim();
        } catch (IllegalArgumentException e) {
            throw misuse(attribute, value, "has a placeholder that cannot be resolved", e);
        }
    }
}
