package dev.baton.spring.election;

import dev.baton.Baton;
import dev.baton.Candidacy;
import dev.baton.LeaderElection;
import dev.baton.Leadership;
import dev.baton.LeadershipListener;
import dev.baton.RevocationReason;
import dev.baton.spring.BatonProperties;
import dev.baton.spring.LeadershipGranted;
import dev.baton.spring.LeadershipRevoked;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.properties.source.InvalidConfigurationPropertyValueException;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.SmartLifecycle;

/**
 * This instance's candidacies in the elections declared under {@code baton.elections}, and what it knows of its own
 * leadership in each.
 *
 * <p>Lifecycle: {@link #start()} joins every enabled election with a {@link Candidacy} (no Redis call on the caller's
 * thread: campaigns run in the background, and a Redis outage only delays them); {@link #stop()} closes them, so that
 * a leader resigns and another instance is elected at once. It runs in phase {@value #PHASE}: after the web server
 * and the other lifecycle beans have started, and before they stop (Boot's graceful shutdown included), so an instance
 * leads only while it fully runs. The Baton bean outlives it: beans are destroyed after every lifecycle stopped.
 *
 * <p>Events: each leadership won publishes {@link LeadershipGranted}, each one ended {@link LeadershipRevoked},
 * synchronously on the candidacy's Baton thread, so that a listener sees one election's events in order and never two
 * at once. The local state ({@link #leadership(String)}) changes just before each event is published, so
 * {@code @LeaderOnly} methods run when the grant is heard and are skipped when the revocation is. A listener that
 * throws is logged with the election's name; the candidacy goes on.
 *
 * <p>Thread-safe.
 */
public final class ElectionCandidates implements SmartLifecycle {
    private static final Logger log = LoggerFactory.getLogger(ElectionCandidates.class);

    /**
     * The lifecycle phase: late to start and early to stop, after (and before) the web server's
     * ({@code SmartLifecycle.DEFAULT_PHASE - 2048}) and Boot's graceful shutdown ({@code DEFAULT_PHASE - 1024}).
     */
    public static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 512;

    private final Map<String, LeaderElection> elections;
    private final Set<String> enabled;
    private final ApplicationEventPublisher publisher;
    private final Map<String, Candidacy> candidacies = new LinkedHashMap<>();
    /** The leadership this instance holds in each election, as its candidacy's listener was told. */
    private final Map<String, Leadership> leading = new ConcurrentHashMap<>();
    private final Object lifecycle = new Object();
    private volatile boolean running;

    /**
     * Looks up each declared election (no Redis call).
     *
     * @param baton     the Baton the elections run on
     * @param declared  the declared elections, by name ({@code baton.elections})
     * @param publisher where leadership events go
     * @throws InvalidConfigurationPropertyValueException if a name is not a valid election name (blank, or longer
     *                                                    than Baton allows), naming its property
     * @throws NullPointerException                       if an argument is null
     */
    public ElectionCandidates(Baton baton, Map<String, BatonProperties.Election> declared,
                              ApplicationEventPublisher publisher) {
        this(lookUp(Objects.requireNonNull(baton, "baton"), Objects.requireNonNull(declared, "declared")),
                declared.entrySet().stream().filter(e -> e.getValue().isEnabled()).map(Map.Entry::getKey)
                        .collect(Collectors.toCollection(LinkedHashSet::new)), publisher);
    }

    /**
     * @param elections the declared elections, by name, in declaration order
     * @param enabled   the names of those this instance campaigns in
     * @param publisher where leadership events go
     */
    ElectionCandidates(Map<String, LeaderElection> elections, Set<String> enabled,
                       ApplicationEventPublisher publisher) {
        this.elections = Collections.unmodifiableMap(new LinkedHashMap<>(elections));
        this.enabled = Collections.unmodifiableSet(new LinkedHashSet<>(enabled));
        this.publisher = Objects.requireNonNull(publisher, "publisher");
    }

    private static Map<String, LeaderElection> lookUp(Baton baton, Map<String, BatonProperties.Election> declared) {
        Map<String, LeaderElection> byName = new LinkedHashMap<>();
        for (String name : declared.keySet()) {
            try {
                byName.put(name, baton.election(name));
            } catch (IllegalArgumentException e) {
                throw new InvalidConfigurationPropertyValueException("baton.elections", name, e.getMessage());
            }
        }
        return byName;
    }

    /**
     * @return the declared elections' names, in declaration order, whether this instance campaigns in them or not
     */
    public Set<String> names() {
        return elections.keySet();
    }

    /**
     * @param name an election's name
     * @return whether it is declared and enabled, so that this instance campaigns in it while running
     */
    public boolean isCandidate(String name) {
        return enabled.contains(name);
    }

    /**
     * A declared election, to ask who leads it ({@link LeaderElection#leader()}).
     *
     * @param name the election's name
     * @return the election
     * @throws IllegalArgumentException if no election of that name is declared
     */
    public LeaderElection election(String name) {
        LeaderElection election = elections.get(name);
        if (election == null) {
            throw new IllegalArgumentException("no election '" + name + "' is declared (baton.elections." + name
                    + ".enabled=true declares it); declared: " + names());
        }
        return election;
    }

    /**
     * This instance's leadership of a declared election, as far as it knows without asking Redis: present from just
     * before {@link LeadershipGranted} is published until just before {@link LeadershipRevoked} is, and only while
     * the leadership's local lease estimate lasts ({@link Leadership#isValid()}).
     *
     * @param name the election's name
     * @return the leadership, or empty if this instance does not lead it now
     * @throws IllegalArgumentException if no election of that name is declared
     */
    public Optional<Leadership> leadership(String name) {
        election(name);
        Leadership leadership = leading.get(name);
        return leadership != null && leadership.isValid() ? Optional.of(leadership) : Optional.empty();
    }

    /** Joins every enabled election; a second call while running does nothing. */
    @Override
    public void start() {
        synchronized (lifecycle) {
            if (running) {
                return;
            }
            for (String name : enabled) {
                candidacies.put(name, elections.get(name).join(new Publisher(name)));
            }
            running = true;
            if (!enabled.isEmpty()) {
                log.info("joined the elections {}", enabled);
            }
        }
    }

    /**
     * Withdraws from every election: a leader resigns (its listeners get {@link LeadershipRevoked} with reason
     * {@link RevocationReason#CLOSED} before this returns) and another candidate is elected at once. Quiet: a Redis
     * outage leaves the leadership to expire with its lease.
     */
    @Override
    public void stop() {
        synchronized (lifecycle) {
            List<Candidacy> joined = new ArrayList<>(candidacies.values());
            candidacies.clear();
            running = false;
            for (Candidacy candidacy : joined) {
                try {
                    candidacy.close();
                } catch (RuntimeException e) { // close() is quiet; keep withdrawing from the others regardless
                    log.warn("could not withdraw from an election: {}", e.getMessage());
                }
            }
        }
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }

    @Override
    public String toString() {
        return "ElectionCandidates" + names() + (running ? ", campaigning in " + enabled : "");
    }

    /** Keeps the local state and publishes one election's leadership changes, on its candidacy's thread. */
    private final class Publisher implements LeadershipListener {
        private final String name;

        Publisher(String name) {
            this.name = name;
        }

        @Override
        public void elected(Leadership leadership) {
            leading.put(name, leadership);
            publish(new LeadershipGranted(ElectionCandidates.this, name, leadership));
        }

        @Override
        public void revoked(Leadership leadership, RevocationReason reason) {
            leading.remove(name, leadership);
            publish(new LeadershipRevoked(ElectionCandidates.this, name, leadership, reason));
        }

        private void publish(Object event) {
            try {
                publisher.publishEvent(event);
            } catch (RuntimeException e) {
                log.warn("a listener of {} in election '{}' threw; the candidacy goes on", event, name, e);
            }
        }
    }
}
