package dev.baton.spring;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Runs the annotated method of a Spring bean only while this instance leads the named election; otherwise the call is
 * skipped (the default) or refused with a {@link NotLeaderException}, as {@link #whenNotLeader()} says.
 *
 * <pre>{@code
 * // application.properties: baton.elections.reports.enabled=true
 * @Scheduled(fixedDelay = 60_000)
 * @LeaderOnly("reports")
 * public void sendReports() {
 *     long epoch = LeadershipContext.currentEpoch();
 *     mailer.send(pending(), epoch);      // the mailer refuses an epoch lower than the last it saw
 * }
 * }</pre>
 *
 * <p>The election must be declared by property ({@code baton.elections.NAME.enabled}); the starter joins it at startup
 * and tracks this instance's leadership, so the check on each call is local (no Redis call). A name no property
 * declares fails the application's start, naming the method and the election; so do the misuses that fail
 * {@link DistributedLock} (a method proxies cannot intercept, a call from inside its own class, a method returning a
 * {@code Mono}, {@code Flux} or {@code CompletionStage}, whose work would run after the check). An election declared
 * with {@code enabled=false} keeps this instance out of the race: its methods never run here.
 *
 * <p>The check is made when the call starts. Leadership can end while the method runs (a lost lease, a Redis outage):
 * the method is not interrupted, which is why it should hand {@link LeadershipContext#currentEpoch()} to what it
 * writes to. Inside the method, {@link LeadershipContext} gives the leadership and its epoch.
 *
 * <p>Around a method that also carries {@code @RateLimited} or {@code @DistributedLock}, the leadership check comes
 * first: a call skipped here charges no rate limit and takes no lock.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface LeaderOnly {

    /**
     * The election's name, as declared under {@code baton.elections}; may hold property placeholders
     * ({@code "${app.election:reports}"}).
     *
     * @return the election's name
     */
    String value();

    /**
     * What a call does when this instance does not lead the election.
     *
     * @return the policy; {@link WhenNotLeader#SKIP} by default
     */
    WhenNotLeader whenNotLeader() default WhenNotLeader.SKIP;
}
