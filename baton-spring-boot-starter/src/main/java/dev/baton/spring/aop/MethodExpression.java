package dev.baton.spring.aop;

import java.lang.reflect.Method;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.context.expression.BeanFactoryResolver;
import org.springframework.context.expression.MethodBasedEvaluationContext;
import org.springframework.core.DefaultParameterNameDiscoverer;
import org.springframework.core.ParameterNameDiscoverer;
import org.springframework.expression.Expression;
import org.springframework.expression.ParseException;
import org.springframework.expression.spel.standard.SpelExpressionParser;

/**
 * One SpEL attribute of an annotated method ({@code key}, {@code skipResult}), parsed once, evaluated per call over
 * the call's arguments: {@code #name} (with {@code -parameters}), {@code #p0} / {@code #a0}, {@code #root.target},
 * {@code #root.method}, {@code #root.args} and {@code @beanName}. Immutable and thread-safe (every evaluation has a
 * context of its own).
 */
final class MethodExpression {

    private static final SpelExpressionParser PARSER = new SpelExpressionParser();
    private static final ParameterNameDiscoverer PARAMETER_NAMES = new DefaultParameterNameDiscoverer();

    private final Expression expression;
    private final Method method;

    private MethodExpression(Expression expression, Method method) {
        this.expression = expression;
        this.method = method;
    }

    /**
     * Parses an attribute.
     *
     * @param attributes reads and reports on the annotation's attributes
     * @param method     the annotated method, whose parameters the expression may name
     * @param attribute  the attribute's name, for the message
     * @param text       the expression
     * @return the parsed expression
     * @throws AnnotationMisuseException if it is blank or does not parse
     */
    static MethodExpression parse(AttributeReader attributes, Method method, String attribute, String text) {
        if (text.isBlank()) {
            throw attributes.misuse(attribute, text, "is blank; write a SpEL expression such as \"'name:' + #id\"",
                    null);
        }
        try {
            return new MethodExpression(PARSER.parseExpression(text), method);
        } catch (ParseException e) {
            throw attributes.misuse(attribute, text, "is not a valid SpEL expression: " + e.getSimpleMessage(), e);
        }
    }

    /**
     * Evaluates the expression for one call.
     *
     * @param target      the bean the method is called on
     * @param args        the call's arguments
     * @param beanFactory resolves {@code @beanName}, or null if there is none
     * @return the value, possibly null
     * @throws org.springframework.expression.EvaluationException if the evaluation fails
     */
    Object evaluate(Object target, Object[] args, BeanFactory beanFactory) {
        MethodBasedEvaluationContext context = new MethodBasedEvaluationContext(
                new InvocationRoot(target, method, args), method, args, PARAMETER_NAMES);
        if (beanFactory != null) {
            context.setBeanResolver(new BeanFactoryResolver(beanFactory));
        }
        return expression.getValue(context);
    }

    /**
     * Evaluates a key for one call: the name of the lock or limiter the call needs.
     *
     * @param annotation  the annotation's name, for the message ({@code "@DistributedLock"})
     * @param target      the bean the method is called on
     * @param args        the call's arguments
     * @param beanFactory resolves {@code @beanName}, or null if there is none
     * @return the value as a string, never blank
     * @throws IllegalArgumentException if the key cannot be evaluated or evaluates to null or a blank string; the
     *                                  message names the method and the expression, not the arguments
     */
    String evaluateName(String annotation, Object target, Object[] args, BeanFactory beanFactory) {
        Object value;
        try {
            value = evaluate(target, args, beanFactory);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(annotation + " key \"" + expression.getExpressionString() + "\" of "
                    + MethodLabel.of(method) + " could not be evaluated: " + e.getMessage(), e);
        }
        if (value == null || value.toString().isBlank()) {
            throw new IllegalArgumentException(annotation + " key \"" + expression.getExpressionString() + "\" of "
                    + MethodLabel.of(method) + " evaluated to " + (value == null ? "null" : "a blank string")
                    + "; it must name something");
        }
        return value.toString();
    }

    /**
     * The root object of an evaluation, {@code #root}: the bean, the method and the arguments.
     */
    public static final class InvocationRoot {
        private final Object target;
        private final Method method;
        private final Object[] args;

        InvocationRoot(Object target, Method method, Object[] args) {
            this.target = target;
            this.method = method;
            this.args = args;
        }

        /** @return the bean the method is called on ({@code #root.target}) */
        public Object getTarget() {
            return target;
        }

        /** @return the annotated method ({@code #root.method}) */
        public Method getMethod() {
            return method;
        }

        /** @return the call's arguments ({@code #root.args}); the array itself, not a copy */
        public Object[] getArgs() {
            return args;
        }
    }
}
