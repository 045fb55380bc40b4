package dev.baton.spring.actuate;

import dev.baton.Baton;
import dev.baton.BatonHealth;
import java.util.Objects;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * Health of Baton ({@code baton} in {@code /actuator/health}): UP when Redis answers and runs Baton's scripts within
 * the command timeout ({@link Baton#health()}), DOWN otherwise, so the check never hangs. Details: the endpoint
 * (host and port, never credentials), the topology, {@code scripts} ({@code loaded} when up: the check ran one of
 * Baton's scripts, loading it again if Redis had lost it; {@code refused} when Redis answered but would not run it,
 * e.g. an ACL without the scripting commands), the round trip, and on failure what went wrong (Baton's message, which
 * never quotes a secret). Thread-safe.
 */
public class BatonHealthIndicator extends AbstractHealthIndicator {
    private final Baton baton;

    /**
     * @param baton the Baton to check
     * @throws NullPointerException if {@code baton} is null
     */
    public BatonHealthIndicator(Baton baton) {
        super("Baton health check failed");
        this.baton = Objects.requireNonNull(baton, "baton");
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        BatonHealth health = baton.health();
        builder.withDetail("endpoint", health.endpoint()).withDetail("topology", health.topology())
                .withDetail("namespace", baton.config().namespace());
        if (health.isUp()) {
            // UP means Redis ran one of Baton's scripts, loading it first if its cache had lost it.
            builder.up().withDetail("scripts", "loaded")
                    .withDetail("latencyMillis", health.latency().toNanos() / 1_000_000.0);
        } else {
            builder.down().withDetail("status", health.status().name());
            if (health.status() == BatonHealth.Status.REFUSED) {
                builder.withDetail("scripts", "refused");
            }
            health.problem().ifPresent(problem -> builder.withDetail("error", problem));
        }
    }
}
