package dev.baton;

import dev.baton.internal.runtime.Require;
import dev.baton.internal.transport.RedisAddress;
import dev.baton.internal.transport.TlsSettings;

import io.lettuce.core.SslOptions;
import io.lettuce.core.resource.ClientResources;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Objects;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * Immutable settings of a {@link Baton}. Build one with {@link #builder()}; every setting but {@link Builder#uri}
 * has a default. Invalid values are rejected by the builder, before any connection is made, with a message that
 * names the setting.
 *
 * <p>Credentials go either into the URI ({@code redis://user:password@host:6379}, percent-encoded) or, so that no
 * password has to be written into a URI, to {@link Builder#username(String)} and {@link Builder#password(char[])}
 * (or {@link Builder#password(Supplier)}, asked at every connection, for rotating secrets). Behind Sentinel, those
 * credentials are the data nodes'; sentinels that require a password of their own get it from
 * {@link Builder#sentinelPassword(char[])}. {@link #toString()} and every message Baton writes show neither a password
 * nor any part of the URI's user info.
 *
 * <p>TLS ({@code rediss://}, {@code rediss-sentinel://}) trusts the JVM's trust store unless
 * {@link Builder#trustedCertificates(Path)} names the certificates of a private CA; {@link Builder#clientCertificate}
 * adds a client certificate for servers that require one, and {@link Builder#sslOptions(SslOptions)} takes Lettuce's
 * options as the application built them.
 *
 * <p>Thread-safe: immutable.
 */
public final class BatonConfig {
    private final String uri;
    private final List<String> clusterSeeds;
    private final List<String> redlockMasters;
    private final double redlockDriftFactor;
    private final Duration redlockMaxLease;
    private final String namespace;
    private final Duration watchdogLease;
    private final Duration commandTimeout;
    private final Duration recheckInterval;
    private final Duration fencingTokenRetention;
    private final int localHandoffLimit;
    private final Duration fairnessThreshold;
    private final Duration rateLimitTimeout;
    private final String username;
    private final ClientResources clientResources;
    private final BatonListener listener;
    private final Supplier<char[]> password;
    private final String sentinelUsername;
    private final Supplier<char[]> sentinelPassword;
    private final Path trustedCertificates;
    private final Path clientCertificate;
    private final Path clientKey;
    private final SslOptions sslOptions;
    private final ReplicaAcknowledgement replicaAcknowledgement;

    private BatonConfig(Builder b) {
        this.uri = b.firstUri();
        this.clusterSeeds = b.clusterSeeds;
        this.redlockMasters = b.redlockMasters;
        this.redlockDriftFactor = b.redlockDriftFactor;
        this.redlockMaxLease = b.redlockMaxLease != null ? b.redlockMaxLease
                : (b.watchdogLease.compareTo(DEFAULT_REDLOCK_MAX_LEASE) > 0 ? b.watchdogLease : DEFAULT_REDLOCK_MAX_LEASE);
        this.namespace = b.namespace;
        this.watchdogLease = b.watchdogLease;
        this.commandTimeout = b.commandTimeout;
        this.recheckInterval = b.recheckInterval;
        this.fencingTokenRetention = b.fencingTokenRetention;
        this.localHandoffLimit = b.localHandoffLimit;
        this.fairnessThreshold = b.fairnessThreshold;
        this.rateLimitTimeout = b.rateLimitTimeout != null ? b.rateLimitTimeout
                : (commandTimeout.compareTo(DEFAULT_RATE_LIMIT_TIMEOUT) < 0 ? commandTimeout
                        : DEFAULT_RATE_LIMIT_TIMEOUT);
        this.username = b.username;
        this.password = b.password;
        this.clientResources = b.clientResources;
        this.listener = b.listener;
        this.sentinelUsername = b.sentinelUsername;
        this.sentinelPassword = b.sentinelPassword;
        this.trustedCertificates = b.trustedCertificates;
        this.clientCertificate = b.clientCertificate;
        this.clientKey = b.clientKey;
        this.sslOptions = b.sslOptions;
        this.replicaAcknowledgement = b.replicaAcknowledgement;
    }

    /** Default of {@link #redlockMaxLease()}, unless the watchdog lease is longer. */
    private static final Duration DEFAULT_REDLOCK_MAX_LEASE = Duration.ofMinutes(1);

    /** Default of {@link #rateLimitTimeout()}, unless the command timeout is shorter. */
    private static final Duration DEFAULT_RATE_LIMIT_TIMEOUT = Duration.ofMillis(500);

    /**
     * A builder with every default set; only {@link Builder#uri(String)} is required.
     *
     * @return a new builder
     */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * The Redis URI as given: {@code redis://[[user]:password@]host[:port][/database]}, {@code rediss://...} for
     * TLS, {@code redis-sentinel://host[:port][,host[:port]...][/database]#master} for Sentinel,
     * {@code rediss-sentinel://...} for Sentinel over TLS (to the sentinels and the data nodes alike). It may hold
     * credentials: log {@link #toString()} instead.
     *
     * @return the URI
     */
    public String uri() {
        return uri;
    }

    /**
     * The seed URIs of a Redis Cluster given to {@link Builder#cluster(String...)}, or empty for a standalone server
     * or Sentinel ({@link #uri()}). With a cluster, {@link #uri()} is the first seed.
     *
     * @return the cluster's seed URIs, in the order given
     */
    public List<String> clusterSeeds() {
        return clusterSeeds;
    }

    /**
     * The URIs of the independent masters given to {@link Builder#redlock(String...)}, or empty if this Baton talks to
     * one Redis (standalone, Sentinel or Cluster). With masters, {@link #uri()} is the first of them, and every lock of
     * the Baton is a Redlock over all of them (see {@code docs/redlock.md}).
     *
     * @return the masters' URIs, in the order given
     */
    public List<String> redlockMasters() {
        return redlockMasters;
    }

    /**
     * How much of every Redlock lease is kept back for the masters' clocks running at different rates: a lock is
     * counted as held for {@code lease - elapsed - (lease * driftFactor + 2 ms)}, where {@code elapsed} is the time
     * from sending the acquisition to hearing a quorum grant it, measured on this process's monotonic clock. Default
     * 0.01 (1%), as in the Redlock description; only used with {@link Builder#redlock(String...)}.
     *
     * @return the drift factor, from 0 (inclusive) to 0.5 (exclusive)
     */
    public double redlockDriftFactor() {
        return redlockDriftFactor;
    }

    /**
     * The longest lease a Redlock may be given, and so how long a master that came back from a restart without its
     * data is kept out of every quorum: by then every lock it may have held has expired on the other masters too
     * (the "delayed restart" rule; see {@code docs/redlock.md}). A longer lease is refused with
     * {@link IllegalArgumentException} before anything is sent. Default: one minute, or the
     * {@linkplain #watchdogLease() watchdog lease} if that is longer. Only used with {@link Builder#redlock(String...)}.
     *
     * @return the longest Redlock lease
     */
    public Duration redlockMaxLease() {
        return redlockMaxLease;
    }

    /**
     * The user name given to {@link Builder#username(String)}, if any (a user name in the URI is not repeated here).
     *
     * @return the ACL user name, or empty for the default user or the URI's
     */
    public Optional<String> username() {
        return Optional.ofNullable(username);
    }

    /**
     * The password given to the builder, as a supplier that returns a fresh copy each time (the caller may clear
     * it), or empty if none was given there (the URI's, if any, is used then).
     *
     * @return the password supplier, or empty
     */
    public Optional<Supplier<char[]>> password() {
        return Optional.ofNullable(password);
    }

    /**
     * The user name given to {@link Builder#sentinelUsername(String)}, if any.
     *
     * @return the ACL user name Baton authenticates as with the sentinels, or empty for their default user
     */
    public Optional<String> sentinelUsername() {
        return Optional.ofNullable(sentinelUsername);
    }

    /**
     * The password given to {@link Builder#sentinelPassword(char[])}, as a supplier that returns a fresh copy each
     * time (the caller may clear it), or empty if the sentinels take none.
     *
     * @return the sentinels' password supplier, or empty
     */
    public Optional<Supplier<char[]>> sentinelPassword() {
        return Optional.ofNullable(sentinelPassword);
    }

    /**
     * The PEM file of CA certificates given to {@link Builder#trustedCertificates(Path)}, if any.
     *
     * @return the certificates a TLS server's certificate must chain to, or empty for the JVM's trust store
     */
    public Optional<Path> trustedCertificates() {
        return Optional.ofNullable(trustedCertificates);
    }

    /**
     * The PEM file of the client certificate (and its chain) given to {@link Builder#clientCertificate}, if any.
     *
     * @return the certificate Baton presents to TLS servers, or empty for none
     */
    public Optional<Path> clientCertificate() {
        return Optional.ofNullable(clientCertificate);
    }

    /**
     * The PEM file of the client certificate's private key given to {@link Builder#clientCertificate}, if any.
     *
     * @return the client key file, or empty for none
     */
    public Optional<Path> clientKey() {
        return Optional.ofNullable(clientKey);
    }

    /**
     * The Lettuce {@code SslOptions} given to {@link Builder#sslOptions(SslOptions)}, if any.
     *
     * @return the application's TLS options, or empty if Baton builds them from the settings above
     */
    public Optional<SslOptions> sslOptions() {
        return Optional.ofNullable(sslOptions);
    }

    /**
     * The Lettuce {@code ClientResources} (event loops, timers, metrics, tracing) given to
     * {@link Builder#clientResources}, if any. Baton then opens its connections on them instead of starting event
     * loops of its own, and leaves them running when it closes: they belong to the application.
     *
     * @return the application's client resources, or empty if Baton starts its own
     */
    public Optional<ClientResources> clientResources() {
        return Optional.ofNullable(clientResources);
    }

    /**
     * The listener given to {@link Builder#listener}, if any.
     *
     * @return the listener of this Baton's events, or empty
     */
    public Optional<BatonListener> listener() {
        return Optional.ofNullable(listener);
    }

    /**
     * Longest time a rate-limit decision waits for Redis (default 500 ms, or {@link #commandTimeout()} if that is
     * shorter). Shorter than the command timeout because a decision sits in the path of every request a service
     * serves: during an outage, a fail-open limiter should grant quickly, and a fail-closed one refuse quickly. Once
     * a decision has found Redis unreachable, fail-open limiters of this Baton grant at once, without waiting, until
     * Redis answers again (see {@link RateLimiter#failOpen()}).
     *
     * @return the rate-limit timeout
     */
    public Duration rateLimitTimeout() {
        return rateLimitTimeout;
    }

    /**
     * Prefix of every key and channel Baton uses (default {@code "baton"}).
     *
     * @return the namespace
     */
    public String namespace() {
        return namespace;
    }

    /**
     * Lease of a lock acquired without an explicit lease (default 30 s); renewed every third of it while held.
     *
     * @return the watchdog lease
     */
    public Duration watchdogLease() {
        return watchdogLease;
    }

    /**
     * Longest time any call waits for Redis to answer (default 3 s), apart from a wait the caller asked for.
     *
     * @return the command timeout
     */
    public Duration commandTimeout() {
        return commandTimeout;
    }

    /**
     * Longest time a waiter sleeps before checking the lock again even without a release notification (default 1 s).
     * It bounds what a lost pub/sub message can cost.
     *
     * @return the recheck interval
     */
    public Duration recheckInterval() {
        return recheckInterval;
    }

    /**
     * How long the last fencing token of an unused lock name is kept in Redis (default 1 day). Tokens stay strictly
     * increasing as long as the Redis server clock does not step back by more than this; see docs/fencing-tokens.md.
     *
     * @return the fencing token retention
     */
    public Duration fencingTokenRetention() {
        return fencingTokenRetention;
    }

    /**
     * How many times in a row a lock released by one thread of this Baton may go straight to another thread of this
     * Baton that waits for it (default 8; 0 turns it off). A handoff takes one Redis round trip instead of a release,
     * a notification and a new acquisition, and the lock is never free in between; after this many, the lock is
     * released to everyone, so threads of other processes get their turn.
     *
     * @return the local handoff limit
     */
    public int localHandoffLimit() {
        return localHandoffLimit;
    }

    /**
     * How long a waiter for a plain lock ({@link Baton#lock(String)}) waits before it takes precedence over newer
     * waiters (default 2 s; {@link Duration#ZERO} turns precedence off). The plain lock is not fair: a release wakes
     * waiters that race each other and newcomers, and a process that keeps the lock busy among its own threads wins
     * most races. Past this threshold, a waiter claims the lock in Redis: from then on the lock goes to nobody else
     * once it is free (a release passes it to the claimant and wakes it by name; a local handoff is refused), except to
     * a waiter that has waited longer still. Waiters past the threshold are thus served oldest first, and the unfair,
     * faster path stays as it was for every wait shorter than the threshold.
     *
     * <p>The bound this gives, under sustained contention from any number of threads and processes: a wait lasts at
     * most about {@code max(threshold, n × (h + d)) + h + d}, where {@code n} is the number of waiters ahead of it
     * past the threshold, {@code h} the longest hold and {@code d} one notification (a pub/sub message and a try,
     * typically a millisecond or two). With few waiters past the threshold, that is the threshold plus about one hold.
     * A holder that crashes adds its lease; a claimant that dies or stops trying holds up a free lock for at most 3 s
     * (3 re-check intervals, if those are shorter than 1 s), since a claimant renews its claim with a try at least
     * once a second, even with a longer {@link #recheckInterval()}; a waiter that gives up withdraws its claim at
     * once. The default is twice the default {@link #recheckInterval()}: well above the waits of ordinary contention,
     * where the unfair path's throughput matters, and well below the multi-second waits callers notice.
     *
     * @return the fairness threshold, or zero if waiters never take precedence
     */
    public Duration fairnessThreshold() {
        return fairnessThreshold;
    }

    /**
     * The replica acknowledgement every lock of this Baton asks for unless its {@link LockOptions} say otherwise, set
     * with {@link Builder#replicaAcknowledged(int, Duration)}; see {@link LockOptions} for what it guarantees.
     *
     * @return the default acknowledgement, or empty if acquisitions are not acknowledged by default (the default)
     */
    public Optional<ReplicaAcknowledgement> replicaAcknowledgement() {
        return Optional.ofNullable(replicaAcknowledgement);
    }

    @Override
    public String toString() {
        return "BatonConfig{" + (!redlockMasters.isEmpty()
                ? "redlock=" + redlockMasters.stream().map(BatonConfig::redactedUri).toList()
                        + ", redlockDriftFactor=" + redlockDriftFactor + ", redlockMaxLease=" + redlockMaxLease
                : clusterSeeds.isEmpty() ? "uri=" + redactedUri(uri)
                : "cluster=" + clusterSeeds.stream().map(BatonConfig::redactedUri).toList())
                + ", namespace=" + namespace + ", watchdogLease=" + watchdogLease
                + ", commandTimeout=" + commandTimeout + ", recheckInterval=" + recheckInterval
                + ", fencingTokenRetention=" + fencingTokenRetention + ", localHandoffLimit=" + localHandoffLimit
                + ", fairnessThreshold=" + fairnessThreshold
                + ", rateLimitTimeout=" + rateLimitTimeout
                + (username != null ? ", username=***" : "") + (password != null ? ", password=***" : "")
                + (sentinelUsername != null ? ", sentinelUsername=***" : "")
                + (sentinelPassword != null ? ", sentinelPassword=***" : "")
                + (trustedCertificates != null ? ", trustedCertificates=" + trustedCertificates : "")
                + (clientCertificate != null ? ", clientCertificate=" + clientCertificate : "")
                + (sslOptions != null ? ", sslOptions=the application's" : "")
                + (clientResources != null ? ", clientResources=the application's" : "")
                + (listener != null ? ", listener=" + listener.getClass().getName() : "")
                + (replicaAcknowledgement != null ? ", replicaAcknowledged=" + replicaAcknowledgement.replicas()
                        + " within " + replicaAcknowledgement.timeout() : "") + "}";
    }

    /** The URI with any user info replaced by {@code ***}; safe for logs and messages. */
    static String redactedUri(String uri) {
        return RedisAddress.redacted(uri);
    }

    /** Builder of {@link BatonConfig}. Not thread-safe. */
    public static final class Builder {
        private String uri;
        private List<String> clusterSeeds = List.of();
        private List<String> redlockMasters = List.of();
        private double redlockDriftFactor = 0.01;
        private Duration redlockMaxLease;
        private String namespace = "baton";
        private Duration watchdogLease = Duration.ofSeconds(30);
        private Duration commandTimeout = Duration.ofSeconds(3);
        private Duration recheckInterval = Duration.ofSeconds(1);
        private Duration fencingTokenRetention = Duration.ofDays(1);
        private int localHandoffLimit = 8;
        private Duration fairnessThreshold = Duration.ofSeconds(2);
        private Duration rateLimitTimeout;
        private String username;
        private Supplier<char[]> password;
        private ClientResources clientResources;
        private BatonListener listener;
        private String sentinelUsername;
        private Supplier<char[]> sentinelPassword;
        private Path trustedCertificates;
        private Path clientCertificate;
        private Path clientKey;
        private SslOptions sslOptions;
        private ReplicaAcknowledgement replicaAcknowledgement;

        private Builder() {
        }

        /**
         * Required. See {@link BatonConfig#uri()}. Reserved characters in a user name or password must be
         * percent-encoded ({@code %40} for {@code @}, {@code %2F} for {@code /}, {@code %23} for {@code #}...), or
         * given to {@link #username(String)} and {@link #password(char[])} instead.
         *
         * @param uri the Redis URI
         * @return this builder
         */
        public Builder uri(String uri) {
            this.uri = Objects.requireNonNull(uri, "uri");
            return this;
        }

        /**
         * Connects to a Redis Cluster through these seeds: {@code redis://} or {@code rediss://} URIs of some of its
         * nodes (one is enough; more survive a seed being down). Baton then learns the topology from the cluster,
         * follows {@code MOVED} and {@code ASK} redirections, failovers and slot migrations, and keeps every key of
         * one lock or rate limiter in one hash slot. Not together with {@link #uri(String)}. All seeds must carry the
         * same credentials, or none (then give them to {@link #username} and {@link #password(char[])}).
         *
         * @param seedUris at least one node of the cluster
         * @return this builder
         */
        public Builder cluster(String... seedUris) {
            this.clusterSeeds = Require.noNulls(seedUris, "seedUris");
            return this;
        }

        /**
         * Makes every lock of this Baton a Redlock over these independent masters: {@code redis://} or
         * {@code rediss://} URIs of Redis servers that do not replicate to each other, an odd number of them, at least
         * 3 (typically 3 or 5). A lock is held once a majority of them granted it in time; losing fewer than half of
         * them never lets a second owner in, though a hold that lives on only part of the masters (possible under
         * contention) is lost by its holder once fewer than a majority of the masters still have it and answer.
         * Fewer than a majority answering is {@link BatonUnavailableException}, also for waiting calls. Fencing
         * tokens stay strictly increasing while a majority keeps its data. Only the plain lock ({@code Baton.lock})
         * runs on a quorum: fair, read-write and multi-locks, semaphores and rate limiters are refused with
         * {@link UnsupportedOperationException}. Not together with {@link #uri(String)} or
         * {@link #cluster(String...)}. All masters must carry the same credentials, or none (then give them to
         * {@link #username} and {@link #password(char[])}). See {@code docs/redlock.md} for what it does and does not
         * guarantee.
         *
         * @param masterUris the masters, an odd number of at least 3
         * @return this builder
         */
        public Builder redlock(String... masterUris) {
            this.redlockMasters = Require.noNulls(masterUris, "masterUris");
            return this;
        }

        /**
         * See {@link BatonConfig#redlockDriftFactor()}; from 0 (inclusive) to 0.5 (exclusive).
         *
         * @param driftFactor the share of every Redlock lease kept back for clock drift
         * @return this builder
         */
        public Builder redlockDriftFactor(double driftFactor) {
            this.redlockDriftFactor = driftFactor;
            return this;
        }

        /**
         * See {@link BatonConfig#redlockMaxLease()}; positive, not shorter than the watchdog lease.
         *
         * @param maxLease the longest Redlock lease, and how long a master that lost its data is kept out
         * @return this builder
         */
        public Builder redlockMaxLease(Duration maxLease) {
            this.redlockMaxLease = Objects.requireNonNull(maxLease, "maxLease");
            return this;
        }

        /**
         * The ACL user to authenticate as; needs a {@link #password(char[]) password}. Not together with credentials
         * in the URI.
         *
         * @param username the Redis ACL user name
         * @return this builder
         */
        public Builder username(String username) {
            this.username = Objects.requireNonNull(username, "username");
            return this;
        }

        /**
         * The password to authenticate with (of {@link #username(String)}, or of the default user). The array is
         * copied: the caller may clear its own. Not together with credentials in the URI.
         *
         * @param password the password
         * @return this builder
         */
        public Builder password(char[] password) {
            char[] copy = Objects.requireNonNull(password, "password").clone();
            this.password = copy::clone;
            return this;
        }

        /**
         * A supplier of the password, asked each time Baton connects or reconnects, for secrets that rotate. It must
         * return quickly and never null, a new array each time (the client keeps the array it was given for that
         * connection's handshake). Not together with credentials in the URI.
         *
         * @param password the password supplier
         * @return this builder
         */
        public Builder password(Supplier<char[]> password) {
            this.password = Objects.requireNonNull(password, "password");
            return this;
        }

        /**
         * The ACL user to authenticate as with the sentinels of a {@code redis-sentinel://} (or
         * {@code rediss-sentinel://}) uri; needs a {@link #sentinelPassword(char[]) sentinel password}. Without it,
         * Baton authenticates with the sentinels' default user.
         *
         * @param sentinelUsername the sentinels' ACL user name
         * @return this builder
         */
        public Builder sentinelUsername(String sentinelUsername) {
            this.sentinelUsername = Objects.requireNonNull(sentinelUsername, "sentinelUsername");
            return this;
        }

        /**
         * The password of the sentinels of a {@code redis-sentinel://} (or {@code rediss-sentinel://}) uri, for
         * sentinels that require one ({@code requirepass} in their configuration), of {@link #sentinelUsername} or of
         * their default user. The credentials of the uri and of {@link #password(char[])} are the data nodes' and are
         * never sent to a sentinel; this one is never sent to a data node. The array is copied: the caller may clear
         * its own.
         *
         * @param sentinelPassword the sentinels' password
         * @return this builder
         */
        public Builder sentinelPassword(char[] sentinelPassword) {
            char[] copy = Objects.requireNonNull(sentinelPassword, "sentinelPassword").clone();
            this.sentinelPassword = copy::clone;
            return this;
        }

        /**
         * Trusts the CA certificates in this PEM file ({@code -----BEGIN CERTIFICATE-----} blocks, one or more) for
         * TLS, instead of the JVM's trust store: for servers whose certificates a private CA signed. The file is
         * checked by {@link #build()} and read again whenever Baton opens a connection, so a renewed file is used from
         * the next reconnection on. Needs a {@code rediss://} or {@code rediss-sentinel://} uri (or {@code rediss://}
         * cluster seeds); not together with {@link #sslOptions(SslOptions)}. The uri's {@code verifyPeer} option
         * still applies: {@code FULL} (the default) also checks that the certificate names the host Baton connects to.
         *
         * @param pemFile the CA certificates to trust
         * @return this builder
         */
        public Builder trustedCertificates(Path pemFile) {
            this.trustedCertificates = Objects.requireNonNull(pemFile, "trustedCertificates");
            return this;
        }

        /**
         * Presents this client certificate in TLS handshakes, for servers that require one
         * ({@code tls-auth-clients yes}, mutual TLS). Both files are PEM: the certificate first, optionally followed by
         * its intermediate CAs, and its private key, unencrypted PKCS#8 ({@code -----BEGIN PRIVATE KEY-----}; convert
         * another format with {@code openssl pkcs8 -topk8 -nocrypt}). They are checked by {@link #build()} and read
         * again whenever Baton opens a connection. Needs a TLS uri; not together with {@link #sslOptions(SslOptions)}.
         *
         * @param certificatePemFile the client certificate (and its chain)
         * @param privateKeyPemFile  its private key
         * @return this builder
         */
        public Builder clientCertificate(Path certificatePemFile, Path privateKeyPemFile) {
            this.clientCertificate = Objects.requireNonNull(certificatePemFile, "certificatePemFile");
            this.clientKey = Objects.requireNonNull(privateKeyPemFile, "privateKeyPemFile");
            return this;
        }

        /**
         * Lettuce's TLS options as the application built them (trust and key stores, protocols, cipher suites, a
         * handshake timeout, an OpenSSL provider...), used as they are for every connection. Needs a TLS uri; not
         * together with {@link #trustedCertificates(Path)} or {@link #clientCertificate}, which build such options
         * for the common cases (with a handshake bounded by the {@link #commandTimeout(Duration) command timeout};
         * Lettuce's default is 10 s).
         *
         * @param sslOptions the application's Lettuce TLS options
         * @return this builder
         */
        public Builder sslOptions(SslOptions sslOptions) {
            this.sslOptions = Objects.requireNonNull(sslOptions, "sslOptions");
            return this;
        }

        /**
         * Lettuce resources the application already runs (for example a Spring application's), so that Baton adds
         * no event loops of its own and Lettuce's metrics and tracing cover its commands. Baton never shuts them down;
         * the application does, after closing Baton. Baton's reconnect back-off then is the resources' own.
         *
         * @param clientResources the application's Lettuce client resources
         * @return this builder
         */
        public Builder clientResources(ClientResources clientResources) {
            this.clientResources = Objects.requireNonNull(clientResources, "clientResources");
            return this;
        }

        /**
         * Receives this Baton's events (locks acquired, released, handed over, lost; renewals that failed; rate-limit
         * decisions), on a thread of Baton's own, never in the caller's path; see {@link BatonListener}.
         *
         * @param listener the listener
         * @return this builder
         */
        public Builder listener(BatonListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /**
         * Makes every lock of this Baton replica-acknowledged unless its {@link LockOptions} say otherwise: an
         * acquisition counts only once Redis {@code WAIT} confirms that at least {@code replicas} replicas have it,
         * within {@code timeout}; otherwise it is undone and the caller gets a
         * {@link ReplicaAcknowledgementException}. See {@link LockOptions} for what this guarantees and what it does
         * not. Standalone masters and Sentinel only: {@link #build()} rejects it together with
         * {@link #cluster(String...)}.
         *
         * @param replicas how many replicas must acknowledge each acquisition, at least 1
         * @param timeout  how long Redis waits for them, at least 1 ms
         * @return this builder
         * @throws IllegalArgumentException if {@code replicas} is below 1 or {@code timeout} is not at least 1 ms (or
         *                                  more than a day)
         * @throws NullPointerException     if {@code timeout} is null
         */
        public Builder replicaAcknowledged(int replicas, Duration timeout) {
            this.replicaAcknowledgement = new ReplicaAcknowledgement(replicas, timeout);
            return this;
        }

        /**
         * See {@link BatonConfig#rateLimitTimeout()}; positive, not longer than the command timeout.
         *
         * @param rateLimitTimeout the longest a rate-limit decision waits for Redis
         * @return this builder
         */
        public Builder rateLimitTimeout(Duration rateLimitTimeout) {
            this.rateLimitTimeout = Objects.requireNonNull(rateLimitTimeout, "rateLimitTimeout");
            return this;
        }

        /**
         * See {@link BatonConfig#namespace()}; non-blank, without braces.
         *
         * @param namespace the key prefix
         * @return this builder
         */
        public Builder namespace(String namespace) {
            this.namespace = Objects.requireNonNull(namespace, "namespace");
            return this;
        }

        /**
         * See {@link BatonConfig#watchdogLease()}; positive.
         *
         * @param watchdogLease the lease of locks acquired without an explicit one
         * @return this builder
         */
        public Builder watchdogLease(Duration watchdogLease) {
            this.watchdogLease = Objects.requireNonNull(watchdogLease, "watchdogLease");
            return this;
        }

        /**
         * See {@link BatonConfig#commandTimeout()}; positive.
         *
         * @param commandTimeout the longest any call waits for Redis
         * @return this builder
         */
        public Builder commandTimeout(Duration commandTimeout) {
            this.commandTimeout = Objects.requireNonNull(commandTimeout, "commandTimeout");
            return this;
        }

        /**
         * See {@link BatonConfig#recheckInterval()}; positive.
         *
         * @param recheckInterval the longest a waiter sleeps without a notification
         * @return this builder
         */
        public Builder recheckInterval(Duration recheckInterval) {
            this.recheckInterval = Objects.requireNonNull(recheckInterval, "recheckInterval");
            return this;
        }

        /**
         * See {@link BatonConfig#fencingTokenRetention()}; not shorter than the watchdog lease.
         *
         * @param fencingTokenRetention how long the last token of an unused lock name is kept
         * @return this builder
         */
        public Builder fencingTokenRetention(Duration fencingTokenRetention) {
            this.fencingTokenRetention = Objects.requireNonNull(fencingTokenRetention, "fencingTokenRetention");
            return this;
        }

        /**
         * See {@link BatonConfig#localHandoffLimit()}; 0 turns local handoffs off.
         *
         * @param localHandoffLimit the most local handoffs in a row
         * @return this builder
         */
        public Builder localHandoffLimit(int localHandoffLimit) {
            this.localHandoffLimit = localHandoffLimit;
            return this;
        }

        /**
         * See {@link BatonConfig#fairnessThreshold()}; zero turns precedence off, otherwise at least 1 ms (claims are
         * timed in milliseconds).
         *
         * @param fairnessThreshold how long a waiter for a plain lock waits before it takes precedence
         * @return this builder
         */
        public Builder fairnessThreshold(Duration fairnessThreshold) {
            this.fairnessThreshold = Objects.requireNonNull(fairnessThreshold, "fairnessThreshold");
            return this;
        }

        /**
         * Checks every setting and the settings against each other; connects to nothing.
         *
         * @return the configuration
         * @throws IllegalArgumentException if the URI is missing or malformed (the message says what is wrong and never
         *         quotes the URI's user info), more than one of uri, cluster seeds and Redlock masters is given, the
         *         seeds or masters differ in scheme or credentials, the Redlock masters are not an odd number of at
         *         least 3 distinct servers, the drift factor is not in [0, 0.5) or the Redlock maximum lease is not
         *         positive, shorter than the watchdog lease or given without masters, credentials are given both in
         *         the URI and to the builder, a user name has no password, sentinel credentials are given without a
         *         Sentinel uri, TLS settings are given without a TLS uri or both as files and as
         *         {@code SslOptions}, a certificate or key file is missing, unreadable or holds no PEM certificate or
         *         unencrypted PKCS#8 key (the message names the setting and the file, never the key), the namespace
         *         is blank or contains braces, a duration is not positive, the rate-limit timeout is longer than the
         *         command timeout, the handoff limit is negative, the fairness threshold is negative or between zero
         *         and 1 ms, replica acknowledgement is asked of a cluster or of Redlock masters, or the fencing token
         *         retention is shorter than the watchdog lease
         */
        public BatonConfig build() {
            checkOneTopology();
            checkRedlock();
            RedisAddress address = RedisAddress.parse(firstUri());
            checkLikeFirst(redlockMasters, address, "redlock masters", "independent servers");
            checkLikeFirst(clusterSeeds, address, "cluster seeds", "cluster nodes");
            checkCredentials(address);
            checkTls(address.tls());
            checkNamespace();
            checkDurations();
            checkWaiters();
            checkReplicaAcknowledgement();
            Require.notShorter(fencingTokenRetention, "fencingTokenRetention", watchdogLease, "watchdogLease");
            return new BatonConfig(this);
        }

        /** The uri, or else the first cluster seed, or else the first Redlock master. */
        private String firstUri() {
            return uri != null ? uri : !clusterSeeds.isEmpty() ? clusterSeeds.get(0) : redlockMasters.get(0);
        }

        private void checkOneTopology() {
            Require.that((uri != null ? 1 : 0) + (clusterSeeds.isEmpty() ? 0 : 1) + (redlockMasters.isEmpty() ? 0 : 1)
                    <= 1, "give one of uri(...), cluster(...) or redlock(...), not several");
            Require.that((uri != null && !uri.isBlank()) || !clusterSeeds.isEmpty() || !redlockMasters.isEmpty(),
                    "uri is required, e.g. redis://localhost:6379 (or cluster(...) with the seed URIs of a Redis "
                            + "Cluster, or redlock(...) with independent masters)");
        }

        private void checkRedlock() {
            if (redlockMasters.isEmpty()) {
                Require.that(redlockMaxLease == null, "redlockMaxLease is for redlock(...) masters");
                return;
            }
            Require.that(redlockMasters.size() >= 3 && redlockMasters.size() % 2 != 0, "redlock needs an odd number "
                    + "of masters, at least 3 (a majority of an even number tolerates no more failures than one "
                    + "master fewer): got " + redlockMasters.size());
            Require.that(redlockMasters.stream().map(RedisAddress::parse).map(RedisAddress::endpoint).distinct().count()
                    == redlockMasters.size(), "redlock masters must be distinct servers: the same host and port is "
                    + "given twice");
            Require.that(redlockDriftFactor >= 0 && redlockDriftFactor < 0.5,
                    "redlockDriftFactor must be at least 0 and below 0.5: " + redlockDriftFactor);
            if (redlockMaxLease != null) {
                Require.aboveZero(redlockMaxLease, "redlockMaxLease");
                Require.notShorter(redlockMaxLease, "redlockMaxLease", watchdogLease, "watchdogLease");
            }
        }

        /**
         * Every Redlock master or cluster seed is a server's URI, with the first one's scheme and credentials (or
         * none); a message quotes a URI only redacted.
         */
        private static void checkLikeFirst(List<String> uris, RedisAddress first, String what, String servers) {
            for (String given : uris) {
                RedisAddress other = RedisAddress.parse(given);
                String shown = RedisAddress.redacted(given);
                Require.that(!other.sentinel(), what + " are redis:// or rediss:// URIs of " + servers
                        + ", not redis-sentinel://: " + shown);
                Require.that(other.tls() == first.tls() && other.hasCredentials() == first.hasCredentials(),
                        what + " must all use the same scheme and all carry credentials or none: " + shown);
            }
        }

        private void checkCredentials(RedisAddress address) {
            Require.that(!address.hasCredentials() || (username == null && password == null), "credentials are given "
                    + "twice, in the uri and with username() or password(): give them in one place");
            Require.that(username == null || password != null, "username needs a password: set password(...) as "
                    + "well");
            Require.that((sentinelUsername == null && sentinelPassword == null) || address.sentinel(),
                    "sentinelUsername and sentinelPassword are for a redis-sentinel:// or rediss-sentinel:// uri; for "
                            + "a server or a cluster, use username() and password()");
            Require.that(sentinelUsername == null || sentinelPassword != null, "sentinelUsername needs a password: "
                    + "set sentinelPassword(...) as well");
        }

        private void checkTls(boolean tlsUri) {
            boolean files = trustedCertificates != null || clientCertificate != null;
            Require.that(tlsUri || (!files && sslOptions == null), (files ? "trustedCertificates and "
                    + "clientCertificate are" : "sslOptions is") + " for TLS: use a rediss:// or rediss-sentinel:// "
                    + "uri (or rediss:// cluster seeds)");
            Require.that(!files || sslOptions == null, "give either sslOptions(...) or trustedCertificates(...) and "
                    + "clientCertificate(...), not both: put the certificates into the SslOptions");
            if (trustedCertificates != null) {
                TlsSettings.checkCertificates(trustedCertificates, "trustedCertificates");
            }
            if (clientCertificate != null) {
                TlsSettings.checkCertificates(clientCertificate, "clientCertificate certificate");
                TlsSettings.checkPrivateKey(clientKey, "clientCertificate private key");
            }
        }

        private void checkNamespace() {
            Require.that(!namespace.isBlank() && namespace.indexOf('{') < 0 && namespace.indexOf('}') < 0,
                    "namespace must be non-blank and contain no braces (they would break Cluster hash tags): '"
                            + namespace + "'");
        }

        private void checkDurations() {
            Require.aboveZero(watchdogLease, "watchdogLease");
            Require.aboveZero(commandTimeout, "commandTimeout");
            Require.aboveZero(recheckInterval, "recheckInterval");
            Require.aboveZero(fencingTokenRetention, "fencingTokenRetention");
            if (rateLimitTimeout != null) {
                Require.aboveZero(rateLimitTimeout, "rateLimitTimeout");
                Require.notLonger(rateLimitTimeout, "rateLimitTimeout", commandTimeout, "commandTimeout");
            }
        }

        /** The settings of how waiters take turns: local handoffs and the fairness threshold. */
        private void checkWaiters() {
            Require.notNegative(localHandoffLimit, "localHandoffLimit");
            Require.that(fairnessThreshold.isZero() || fairnessThreshold.compareTo(Duration.ofMillis(1)) >= 0,
                    "fairnessThreshold must be zero (off) or at least 1 ms: " + fairnessThreshold);
        }

        private void checkReplicaAcknowledgement() {
            if (replicaAcknowledgement == null) {
                return;
            }
            Require.that(redlockMasters.isEmpty(), "replicaAcknowledged(...) is not supported with redlock(...): a "
                    + "Redlock's masters are independent and its safety comes from the majority, not from replicas");
            Require.that(clusterSeeds.isEmpty(), "replicaAcknowledged(...) is not supported on a Redis Cluster: WAIT "
                    + "would have to reach the master of each lock's slot; use it with a standalone master or "
                    + "Sentinel");
        }
    }
}
