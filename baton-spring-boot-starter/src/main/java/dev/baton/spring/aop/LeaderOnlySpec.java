package dev.baton.spring.aop;

import dev.baton.spring.LeaderOnly;
import dev.baton.spring.WhenNotLeader;
import java.lang.reflect.Method;
import java.util.function.Supplier;
import org.springframework.core.env.PropertyResolver;

/**
 * One {@link LeaderOnly @LeaderOnly} method, with its election's name resolved (placeholders) and the empty value a
 * skipped call returns, checked once. Whether the election is declared is checked by {@link AnnotatedBeanInspector}
 * once the context's beans exist. Immutable and thread-safe.
 *
 * @param label         the method, for messages
 * @param election      the election's name
 * @param whenNotLeader what a call does when this instance does not lead
 * @param skipped       the empty value of the method's return type
 */
record LeaderOnlySpec(String label, String election, WhenNotLeader whenNotLeader, Supplier<Object> skipped) {
    static final String ANNOTATION = "@LeaderOnly";

    /**
     * Parses and checks a method's annotation.
     *
     * @param method      the annotated method
     * @param annotation  its annotation
     * @param environment resolves placeholders in the election's name
     * @return the spec
     * @throws AnnotationMisuseException if the name is blank or has a placeholder that cannot be resolved, or the
     *                                   method's work would run after the check (an asynchronous return type)
     */
    static LeaderOnlySpec of(Method method, LeaderOnly annotation, PropertyResolver environment) {
        AttributeReader attributes = new AttributeReader(environment, ANNOTATION, method);
        String election = attributes.text("value", annotation.value());
        if (election.isEmpty()) {
            throw attributes.misuse("value", annotation.value(), "is blank; name an election declared under "
                    + "baton.elections", null);
        }
        String label = MethodLabel.of(method);
        ReturnStyle style = ReturnStyle.of(method);
        if (style.isAsynchronous()) {
            throw new AnnotationMisuseException(ANNOTATION + " on " + label + ": the method returns a "
                    + method.getReturnType().getSimpleName() + ", whose work runs after the method returned, while "
                    + "this annotation checks the leadership when the call starts. Check it where the work runs "
                    + "instead (ElectionCandidates.leadership(name)), or return the value itself.");
        }
        return new LeaderOnlySpec(label, election, annotation.whenNotLeader(),
                EmptyReturnValue.of(method.getReturnType()));
    }
}
