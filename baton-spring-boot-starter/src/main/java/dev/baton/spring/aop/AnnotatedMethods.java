package dev.baton.spring.aop;

import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import org.aopalliance.intercept.MethodInvocation;
import org.springframework.aop.support.AopUtils;
import org.springframework.core.BridgeMethodResolver;
import org.springframework.core.annotation.AnnotatedElementUtils;

/**
 * The parsed form of one annotation per method, computed once: at startup for the methods of every bean (so that
 * misuse fails the start), and on first call for a method the startup scan could not see. Thread-safe.
 *
 * @param <A> the annotation
 * @param <S> its parsed form
 */
final class AnnotatedMethods<A extends Annotation, S> {

    private final Class<A> annotation;
    private final BiFunction<Method, A, S> parser;
    private final Map<Method, S> specs = new ConcurrentHashMap<>();

    /**
     * @param annotation the annotation
     * @param parser     parses and checks one method's annotation, throwing {@link AnnotationMisuseException}
     */
    AnnotatedMethods(Class<A> annotation, BiFunction<Method, A, S> parser) {
        this.annotation = annotation;
        this.parser = parser;
    }

    /** @return the annotation these specs are of */
    Class<A> annotation() {
        return annotation;
    }

    /**
     * @param method a method of a bean's class, the annotation found on it or on what it overrides
     * @return the parsed annotation, or null if the method is not annotated
     * @throws AnnotationMisuseException if the annotation is misused
     */
    S of(Method method) {
        S known = specs.get(method);
        if (known != null) {
            return known;
        }
        A found = AnnotatedElementUtils.findMergedAnnotation(method, annotation);
        if (found == null) {
            return null;
        }
        return specs.computeIfAbsent(method, m -> parser.apply(m, found));
    }

    /**
     * @param invocation a call through a proxy
     * @return the parsed annotation of the bean class's method that the call runs
     * @throws IllegalStateException if that method is not annotated (the advisor's pointcut matched it, so it is)
     */
    S of(MethodInvocation invocation) {
        Object target = invocation.getThis();
        Method method = invocation.getMethod();
        if (target != null) {
            method = BridgeMethodResolver.findBridgedMethod(
                    AopUtils.getMostSpecificMethod(method, AopUtils.getTargetClass(target)));
        }
        S spec = of(method);
        if (spec == null) {
            throw new IllegalStateException("@" + annotation.getSimpleName() + " not found on "
                    + MethodLabel.of(method));
        }
        return spec;
    }
}
