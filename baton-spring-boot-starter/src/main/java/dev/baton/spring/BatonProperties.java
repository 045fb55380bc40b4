package dev.baton.spring;

import org.springframework.boot.context.properties.ConfigurationProperties;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code baton.*} properties. Where to connect comes from {@code spring.data.redis.*}, which the application
 * already has, unless {@code baton.redlock.nodes} names independent masters for a Redlock; the rest tune Baton itself.
 * A property left unset keeps Baton's own default (see {@code dev.baton.BatonConfig}). An unknown {@code baton.*}
 * property or a value that does not convert fails the application's start. Not thread-safe while being bound;
 * read-only afterwards.
 */
@ConfigurationProperties(prefix = "baton", ignoreUnknownFields = false)
public class BatonProperties {

    /** Whether to auto-configure Baton at all. */
    private boolean enabled = true;

    /** Prefix of every Redis key Baton writes, so that applications sharing a Redis stay apart. */
    private String namespace;

    /**
     * How long one Redis command may take before Baton gives up on it with a clear exception; unset:
     * spring.data.redis.timeout if that is set, else Baton's default (3 s).
     */
    private Duration commandTimeout;

    /** The lease the watchdog keeps renewing while a lock taken without a fixed lease is held. */
    private Duration watchdogLease;

    /** How often a waiter looks at the lock again when no release notification arrived. */
    private Duration recheckInterval;

    /** How long a lock's fencing-token counter outlives the lock's last use. */
    private Duration fencingTokenRetention;

    /** How many times in a row a lock may be handed to a waiter of this process before others get a chance. */
    private Integer localHandoffLimit;

    /** The longest a waiter of a plain lock waits behind newer arrivals; 0 turns the bound off. */
    private Duration fairnessThreshold;

    private final Lock lock = new Lock();

    private final RateLimit rateLimit = new RateLimit();

    private final Metrics metrics = new Metrics();

    private final Redlock redlock = new Redlock();

    private final Web web = new Web();

    /**
     * Leader elections this instance takes part in, by election name: baton.elections.NAME.enabled=true joins the
     * election NAME at startup (write a name with dots or capitals in brackets: baton.elections[orders.Sync].enabled).
     * Leadership changes are published as LeadershipGranted and LeadershipRevoked events, and @LeaderOnly methods
     * may only name an election declared here.
     */
    private final Map<String, Election> elections = new LinkedHashMap<>();

    /** @return whether Baton is auto-configured */
    public boolean isEnabled() {
        return enabled;
    }

    /** @param enabled whether Baton is auto-configured */
    public void setEnabled(boolean enabled) {
        this.enabled = enabled;
    }

    /** @return the key namespace, or null for Baton's default */
    public String getNamespace() {
        return namespace;
    }

    /** @param namespace the key namespace */
    public void setNamespace(String namespace) {
        this.namespace = namespace;
    }

    /** @return the command timeout, or null for Baton's default */
    public Duration getCommandTimeout() {
        return commandTimeout;
    }

    /** @param commandTimeout the command timeout */
    public void setCommandTimeout(Duration commandTimeout) {
        this.commandTimeout = commandTimeout;
    }

    /** @return the watchdog lease, or null for Baton's default */
    public Duration getWatchdogLease() {
        return watchdogLease;
    }

    /** @param watchdogLease the watchdog lease */
    public void setWatchdogLease(Duration watchdogLease) {
        this.watchdogLease = watchdogLease;
    }

    /** @return the re-check interval, or null for Baton's default */
    public Duration getRecheckInterval() {
        return recheckInterval;
    }

    /** @param recheckInterval the re-check interval */
    public void setRecheckInterval(Duration recheckInterval) {
        this.recheckInterval = recheckInterval;
    }

    /** @return the fencing-token retention, or null for Baton's default */
    public Duration getFencingTokenRetention() {
        return fencingTokenRetention;
    }

    /** @param fencingTokenRetention the fencing-token retention */
    public void setFencingTokenRetention(Duration fencingTokenRetention) {
        this.fencingTokenRetention = fencingTokenRetention;
    }

    /** @return the local hand-off limit, or null for Baton's default */
    public Integer getLocalHandoffLimit() {
        return localHandoffLimit;
    }

    /** @param localHandoffLimit the local hand-off limit */
    public void setLocalHandoffLimit(Integer localHandoffLimit) {
        this.localHandoffLimit = localHandoffLimit;
    }

    /** @return the fairness threshold, or null for Baton's default */
    public Duration getFairnessThreshold() {
        return fairnessThreshold;
    }

    /** @param fairnessThreshold the fairness threshold */
    public void setFairnessThreshold(Duration fairnessThreshold) {
        this.fairnessThreshold = fairnessThreshold;
    }

    /** @return the {@code baton.lock.*} properties */
    public Lock getLock() {
        return lock;
    }

    /** @return the {@code baton.rate-limit.*} properties */
    public RateLimit getRateLimit() {
        return rateLimit;
    }

    /** @return the {@code baton.metrics.*} properties */
    public Metrics getMetrics() {
        return metrics;
    }

    /** @return the {@code baton.redlock.*} properties */
    public Redlock getRedlock() {
        return redlock;
    }

    /** @return the {@code baton.web.*} properties */
    public Web getWeb() {
        return web;
    }

    /** @return the {@code baton.elections.*} properties, by election name, in declaration order */
    public Map<String, Election> getElections() {
        return elections;
    }

    /**
     * One leader election declared under {@code baton.elections}: the starter joins it at startup (after the Baton
     * connects), publishes leadership changes as application events, and withdraws on shutdown, before the Baton
     * closes (a leader hands over at once instead of leaving its lease to expire).
     */
    public static class Election {

        /**
         * Whether this instance campaigns in the election. False keeps it out of the race while the election stays
         * declared: @LeaderOnly methods naming it never run here, and the actuator endpoint still shows who leads.
         */
        private boolean enabled = true;

        /** @return whether this instance campaigns */
        public boolean isEnabled() {
            return enabled;
        }

        /** @param enabled whether this instance campaigns */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }
    }

    /** How Spring MVC and WebFlux answer Baton's failures (see also {@code baton.rate-limit.web-responses}). */
    public static class Web {

        /**
         * Whether MVC and WebFlux answer a @DistributedLock not acquired in time and Redis unavailable with 503 and
         * Retry-After; false leaves them to Spring (500).
         */
        private boolean unavailableResponses = true;

        /** @return whether lock timeouts and outages become 503 responses */
        public boolean isUnavailableResponses() {
            return unavailableResponses;
        }

        /** @param unavailableResponses whether lock timeouts and outages become 503 responses */
        public void setUnavailableResponses(boolean unavailableResponses) {
            this.unavailableResponses = unavailableResponses;
        }
    }

    /** Defaults of {@link DistributedLock} methods. */
    public static class Lock {

        /** How long a @DistributedLock method waits for its lock when the annotation does not say. */
        private Duration waitTime = Duration.ofSeconds(30);

        /** @return the default wait */
        public Duration getWaitTime() {
            return waitTime;
        }

        /** @param waitTime the default wait */
        public void setWaitTime(Duration waitTime) {
            this.waitTime = waitTime;
        }
    }

    /** Defaults of {@link RateLimited} methods. */
    public static class RateLimit {

        /** Whether a @RateLimited call goes ahead unchecked when Redis cannot answer, unless it says. */
        private boolean failOpen;

        /** Whether MVC and WebFlux answer a refused @RateLimited call with 429 and rate-limit headers. */
        private boolean webResponses = true;

        /** How many limiters the registry keeps; the least recently used beyond that are dropped (and recreated). */
        private int maxLimiters = 10_000;

        /**
         * Longest time a rate-limit decision waits for Redis; unset: Baton's default (500 ms, or the command timeout if
         * that is shorter). Not longer than the command timeout.
         */
        private Duration timeout;

        /** @return whether calls fail open by default */
        public boolean isFailOpen() {
            return failOpen;
        }

        /** @param failOpen whether calls fail open by default */
        public void setFailOpen(boolean failOpen) {
            this.failOpen = failOpen;
        }

        /** @return whether refusals become 429 responses */
        public boolean isWebResponses() {
            return webResponses;
        }

        /** @param webResponses whether refusals become 429 responses */
        public void setWebResponses(boolean webResponses) {
            this.webResponses = webResponses;
        }

        /** @return how many limiters the registry keeps */
        public int getMaxLimiters() {
            return maxLimiters;
        }

        /** @param maxLimiters how many limiters the registry keeps */
        public void setMaxLimiters(int maxLimiters) {
            this.maxLimiters = maxLimiters;
        }

        /** @return the rate-limit timeout, or null for Baton's default */
        public Duration getTimeout() {
            return timeout;
        }

        /** @param timeout the rate-limit timeout */
        public void setTimeout(Duration timeout) {
            this.timeout = timeout;
        }
    }

    /** Micrometer metrics of Baton's events. */
    public static class Metrics {

        /** Whether to record Baton's events as Micrometer meters when Micrometer is present. */
        private boolean enabled = true;

        /**
         * How many distinct lock or limiter names get a tag value of their own; names beyond that are tagged
         * other, so that per-user keys cannot flood the registry.
         */
        private int maxNames = 100;

        /** @return whether metrics are recorded */
        public boolean isEnabled() {
            return enabled;
        }

        /** @param enabled whether metrics are recorded */
        public void setEnabled(boolean enabled) {
            this.enabled = enabled;
        }

        /** @return how many names are tagged individually */
        public int getMaxNames() {
            return maxNames;
        }

        /** @param maxNames how many names are tagged individually */
        public void setMaxNames(int maxNames) {
            this.maxNames = maxNames;
        }
    }

    /**
     * A Redlock over independent Redis masters instead of the {@code spring.data.redis.*} connection (see
     * {@code dev.baton.BatonConfig.Builder#redlock}). With it, Baton's locks are plain mutexes held by a majority;
     * fair, read-write and multi-locks, semaphores and rate limiters are refused, and {@code @RateLimited} methods or
     * {@code @DistributedLock} methods of another kind fail the application's start.
     */
    public static class Redlock {

        /**
         * The masters, as redis:// or rediss:// URIs (an odd number, at least 3, all with the same scheme and
         * credentials). Empty: no Redlock, Baton connects as spring.data.redis.* says. Put passwords in the
         * environment, not in a committed file; Baton never quotes them.
         */
        private List<String> nodes = new ArrayList<>();

        /** Share of a lease set aside for clock drift between the masters; unset: Baton's default (0.01). */
        private Double driftFactor;

        /**
         * Longest lease a Redlock may hold, and how long a master that came back empty sits out; unset: Baton's
         * default (the longer of 1 minute and the watchdog lease).
         */
        private Duration maxLease;

        /** @return the masters' URIs (empty: no Redlock) */
        public List<String> getNodes() {
            return nodes;
        }

        /** @param nodes the masters' URIs */
        public void setNodes(List<String> nodes) {
            this.nodes = nodes;
        }

        /** @return the drift factor, or null for Baton's default */
        public Double getDriftFactor() {
            return driftFactor;
        }

        /** @param driftFactor the drift factor */
        public void setDriftFactor(Double driftFactor) {
            this.driftFactor = driftFactor;
        }

        /** @return the longest lease, or null for Baton's default */
        public Duration getMaxLease() {
            return maxLease;
        }

        /** @param maxLease the longest lease */
        public void setMaxLease(Duration maxLease) {
            this.maxLease = maxLease;
        }

        @Override
        public String toString() {
            // Never the URIs: they may carry a password.
            return "Redlock{" + nodes.size() + " nodes}";
        }
    }
}
