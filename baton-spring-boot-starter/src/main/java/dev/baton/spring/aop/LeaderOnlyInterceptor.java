package dev.baton.spring.aop;

import dev.baton.Leadership;
import dev.baton.spring.LeaderOnly;
import dev.baton.spring.LeadershipContext;
import dev.baton.spring.NotLeaderException;
import dev.baton.spring.WhenNotLeader;
import dev.baton.spring.election.ElectionCandidates;
import java.util.Objects;
import java.util.Optional;
import org.aopalliance.intercept.MethodInterceptor;
import org.aopalliance.intercept.MethodInvocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.env.PropertyResolver;

/**
 * Runs a {@link LeaderOnly @LeaderOnly} method only while this instance leads its election, as
 * {@link ElectionCandidates} knows it (no Redis call), with the leadership current in {@link LeadershipContext} while
 * the method runs.
 *
 * <p>Failure behaviour: not leading, {@link WhenNotLeader#SKIP} returns the empty value of the method's return type
 * without running it; {@link WhenNotLeader#THROW} throws {@link NotLeaderException} naming the election and the
 * method. The context has no {@link ElectionCandidates} (no Baton): {@link IllegalStateException}; the startup checks
 * fail the start before that can happen. What the method throws propagates unchanged. Thread-safe.
 */
public final class LeaderOnlyInterceptor implements MethodInterceptor {
    private static final Logger log = LoggerFactory.getLogger(LeaderOnlyInterceptor.class);

    private final ObjectProvider<ElectionCandidates> candidates;
    private final AnnotatedMethods<LeaderOnly, LeaderOnlySpec> specs;

    /**
     * The provider is only asked at the first call, so that creating the interceptor (early, with the other
     * infrastructure of the context) does not create the Baton.
     *
     * @param candidates  this instance's candidacies
     * @param environment resolves placeholders in election names
     * @throws NullPointerException if an argument is null
     */
    public LeaderOnlyInterceptor(ObjectProvider<ElectionCandidates> candidates, PropertyResolver environment) {
        this.candidates = Objects.requireNonNull(candidates, "candidates");
        Objects.requireNonNull(environment, "environment");
        this.specs = new AnnotatedMethods<>(LeaderOnly.class,
                (method, annotation) -> LeaderOnlySpec.of(method, annotation, environment));
    }

    /** @return the parsed annotations, which the startup checks fill */
    AnnotatedMethods<LeaderOnly, LeaderOnlySpec> specs() {
        return specs;
    }

    /**
     * Runs the call if this instance leads.
     *
     * @param invocation the call
     * @return the method's result, or the empty value when skipped
     * @throws Throwable what the method throws, or the failures described on the class
     */
    @Override
    public Object invoke(MethodInvocation invocation) throws Throwable {
        LeaderOnlySpec spec = specs.of(invocation);
        ElectionCandidates elections = candidates.getIfUnique();
        if (elections == null) {
            throw new IllegalStateException(LeaderOnlySpec.ANNOTATION + " on " + spec.label() + " needs Baton's "
                    + "elections, and the context has none (is baton.enabled=false?)");
        }
        Optional<Leadership> leadership = elections.leadership(spec.election());
        if (leadership.isEmpty()) {
            if (spec.whenNotLeader() == WhenNotLeader.SKIP) {
                log.debug("skipped {}: this instance does not lead election '{}'", spec.label(), spec.election());
                return spec.skipped().get();
            }
            throw new NotLeaderException(spec.election(), spec.label() + " did not run: this instance does not lead "
                    + "election '" + spec.election() + "'");
        }
        try (LeadershipContext.Scope scope = LeadershipContext.open(leadership.get())) {
            return invocation.proceed();
        }
    }
}
