package dev.baton.internal.transport;

import dev.baton.BatonConfig;
import dev.baton.BatonException;
import dev.baton.BatonUnavailableException;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisBusyException;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisCredentialsProvider;
import io.lettuce.core.RedisException;
import io.lettuce.core.RedisLoadingException;
import io.lettuce.core.RedisNoScriptException;
import io.lettuce.core.RedisReadOnlyException;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.SocketOptions;
import io.lettuce.core.SslOptions;
import io.lettuce.core.SslVerifyMode;
import io.lettuce.core.TimeoutOptions;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.BaseRedisAsyncCommands;
import io.lettuce.core.api.async.RedisAsyncCommands;
import io.lettuce.core.api.async.RedisKeyAsyncCommands;
import io.lettuce.core.api.async.RedisScriptingAsyncCommands;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.codec.StringCodec;
import io.lettuce.core.masterreplica.MasterReplica;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.Delay;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketAddress;
import java.net.UnknownHostException;
import java.nio.channels.ClosedChannelException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Baton's only door to Redis: one Lettuce client, one command connection, scripts by SHA with a NOSCRIPT fallback,
 * and the translation of Lettuce failures into Baton's exceptions, with messages that say what is wrong (an
 * unreachable server, a port nothing listens on, a host name that does not resolve, a port where another server than
 * Redis answers, a refused password, a missing permission, a wrong database, TLS against a plain port) and never
 * contain credentials.
 *
 * <p>Commands are rejected at once while the connection is down (instead of queueing until a timeout), every command
 * times out after {@code commandTimeout}, and Lettuce reconnects in the background with a short capped back-off, so
 * a restarted Redis is used again within about a second. Lost and regained connections are logged.
 */
public final class RedisGateway implements Transport {
    private static final Logger log = LoggerFactory.getLogger(RedisGateway.class);

    /** The first wait before a script refused with TRYAGAIN is sent again; it doubles up to the maximum. */
    private static final long FIRST_REHASH_RETRY_MILLIS = 5;
    private static final long MAX_REHASH_RETRY_MILLIS = 100;

    /** The resources Baton started for itself, shut down with it; null when they are the application's. */
    private final ClientResources ownResources;
    /** A {@link RedisClient}, or a {@link RedisClusterClient} for a cluster. */
    private final AbstractRedisClient client;
    private final RedisAddress address;
    private final RedisURI uri;
    private final boolean cluster;
    /** Whether lock releases use sharded pub/sub: a Cluster whose nodes run Redis 7 or later. */
    private final boolean shardedPubSub;
    private final StatefulConnection<String, String> connection;
    /** The command connection's commands, by the interfaces standalone and cluster connections share. */
    private final RedisScriptingAsyncCommands<String, String> scripting;
    private final RedisKeyAsyncCommands<String, String> keyCommands;
    private final BaseRedisAsyncCommands<String, String> base;
    private final Duration commandTimeout;
    /** How long a blocking call waits at most (see {@link #await(CompletionStage)}); computed once, not per call. */
    private final Duration awaitBound;
    private final String endpoint;
    private final boolean credentialsGiven;
    private final BatonConfig config;
    private volatile boolean closing;
    /** Told when the pub/sub connection is back after a loss (see {@link Subscriptions.Listener#reconnected()}). */
    private final List<Subscriptions.Listener> subscriptionListeners = new CopyOnWriteArrayList<>();
    /** The pub/sub connection, once opened: with the command connection, the ones whose losses are logged. */
    private volatile StatefulRedisPubSubConnection<String, String> pubSub;
    /** The connections of replica-acknowledged writes, once the first is asked for; closed with the gateway. */
    private AcknowledgedWrites acknowledgedWrites;

    /**
     * @param node   the one server to talk to, overriding the configuration's URI (a Redlock master), or null
     * @param shared resources to run on instead of the configuration's or Baton's own, or null
     */
    private RedisGateway(BatonConfig config, RedisAddress node, ClientResources shared) {
        this.config = config;
        this.commandTimeout = config.commandTimeout();
        this.awaitBound = commandTimeout.multipliedBy(2).plusMillis(100);
        this.address = node != null ? node : RedisAddress.parse(config.uri());
        this.uri = lettuceUri(address, config);
        this.cluster = node == null && !config.clusterSeeds().isEmpty();
        List<RedisAddress> seeds = config.clusterSeeds().stream().map(RedisAddress::parse).toList();
        this.endpoint = cluster ? "cluster " + String.join(",", seeds.stream().map(RedisAddress::endpoint).toList())
                : address.endpoint();
        this.credentialsGiven = address.hasCredentials() || config.password().isPresent();
        this.ownResources = shared != null || config.clientResources().isPresent() ? null : ownResources();
        ClientResources resources = shared != null ? shared : config.clientResources().orElse(ownResources);
        SocketOptions socket = SocketOptions.builder().connectTimeout(commandTimeout).keepAlive(true).build();
        SslOptions ssl = TlsSettings.sslOptions(config.sslOptions().orElse(null),
                config.trustedCertificates().orElse(null), config.clientCertificate().orElse(null),
                config.clientKey().orElse(null), commandTimeout);
        if (cluster) {
            RedisClusterClient clusterClient = RedisClusterClient.create(resources,
                    seeds.stream().map(seed -> lettuceUri(seed, config)).toList());
            ClusterClientOptions.Builder options = ClusterClientOptions.builder();
            if (ssl != null) {
                options.sslOptions(ssl);
            }
            clusterClient.setOptions(options
                    .autoReconnect(true)
                    // Lettuce opens a node's connection when a command first goes there, so rejecting commands
                    // while disconnected would refuse those first commands; they wait instead, bounded by the
                    // command timeout like every other command.
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.ACCEPT_COMMANDS)
                    .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
                    .socketOptions(socket)
                    // Follow failovers and slot migrations as soon as a redirection or a lost node shows one,
                    // and look now and then in case nothing did.
                    .topologyRefreshOptions(ClusterTopologyRefreshOptions.builder()
                            .enableAllAdaptiveRefreshTriggers()
                            .enablePeriodicRefresh(Duration.ofSeconds(30))
                            .build())
                    .build());
            this.client = clusterClient;
        } else {
            RedisClient standalone = RedisClient.create(resources, uri);
            ClientOptions.Builder options = ClientOptions.builder();
            if (ssl != null) {
                options.sslOptions(ssl);
            }
            standalone.setOptions(options
                    .autoReconnect(true)
                    .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS)
                    .timeoutOptions(TimeoutOptions.enabled(commandTimeout))
                    .socketOptions(socket)
                    .build());
            this.client = standalone;
        }
        client.addListener(new ConnectionLog());
        long connecting = System.nanoTime(); // the gateway exists before any runtime (and its ticker) does
        try {
            if (client instanceof RedisClusterClient c) {
                StatefulRedisClusterConnection<String, String> conn = c.connect(StringCodec.UTF8);
                this.connection = conn;
                RedisAdvancedClusterAsyncCommands<String, String> async = conn.async();
                this.scripting = async;
                this.keyCommands = async;
                this.base = async;
                this.shardedPubSub = askShardedPubSub(conn);
            } else {
                RedisClient c = (RedisClient) client;
                // Behind Sentinel, a master-replica connection: it listens to the sentinels and moves its commands
                // to the promoted replica after a failover. A plain connection would stay on the old master, which a
                // failover only demotes, and every write would then be refused as READONLY.
                StatefulRedisConnection<String, String> conn = address.sentinel()
                        ? MasterReplica.connect(c, StringCodec.UTF8, uri) : c.connect(StringCodec.UTF8);
                this.connection = conn;
                RedisAsyncCommands<String, String> async = conn.async();
                this.scripting = async;
                this.keyCommands = async;
                this.base = async;
                this.shardedPubSub = false;
            }
        } catch (RuntimeException e) {
            shutdown();
            throw connectFailure(e, Duration.ofNanos(System.nanoTime() - connecting));
        }
        log.debug("connected to Redis at {}", endpoint);
    }

    /** Whether this gateway talks to a Redis Cluster: scripts must then keep to one hash slot each. */
    public boolean isCluster() {
        return cluster;
    }

    /**
     * Whether lock releases are announced with sharded pub/sub ({@code SPUBLISH}, heard with {@code SSUBSCRIBE} on
     * the node that owns the lock's slot). Only on a Cluster of Redis 7 or later: classic {@code PUBLISH} on a
     * Cluster is copied to every node, so each release would cost work on all of them; on one server (standalone or
     * behind Sentinel) the two are the same. Decided once, from the server's version, so that every Baton on the
     * same servers agrees.
     */
    @Override
    public boolean shardedPubSub() {
        return shardedPubSub;
    }

    private static boolean askShardedPubSub(StatefulRedisClusterConnection<String, String> conn) {
        try {
            return supportsShardedPubSub(conn.sync().info("server"));
        } catch (RedisCommandExecutionException e) {
            // A user whose ACL rule refuses INFO still gets working wake-ups, by classic pub/sub.
            log.debug("INFO refused ({}); lock releases use classic pub/sub", e.getMessage());
            return false;
        }
    }

    /** Whether an {@code INFO server} reply names Redis 7 or later, which has sharded pub/sub. */
    static boolean supportsShardedPubSub(String infoServer) {
        for (String line : infoServer.split("\r?\n")) {
            if (line.startsWith("redis_version:")) {
                String version = line.substring("redis_version:".length()).trim();
                int dot = version.indexOf('.');
                try {
                    return Integer.parseInt(dot < 0 ? version : version.substring(0, dot)) >= 7;
                } catch (NumberFormatException e) {
                    return false;
                }
            }
        }
        return false;
    }

    /** Lettuce's URI, built from Baton's own parse, so that Lettuce never parses (or echoes) the user's string. */
    private static RedisURI lettuceUri(RedisAddress a, BatonConfig config) {
        RedisAddress.HostAndPort first = a.hosts().get(0);
        RedisURI.Builder b;
        if (a.sentinel()) {
            b = RedisURI.builder().withSentinelMasterId(a.master().orElseThrow());
            for (RedisAddress.HostAndPort h : a.hosts()) {
                b.withSentinel(sentinelUri(h, config));
            }
        } else {
            b = RedisURI.builder().withHost(first.host()).withPort(first.port());
        }
        b.withDatabase(a.database()).withTimeout(config.commandTimeout());
        if (a.tls()) {
            b.withSsl(true).withVerifyPeer(SslVerifyMode.valueOf(a.verifyPeer()));
        }
        a.clientName().ifPresent(b::withClientName);
        if (config.password().isPresent()) {
            String user = config.username().orElse(null);
            Supplier<char[]> password = config.password().get();
            // Asked at every (re)connection, so a rotated secret is picked up without a new Baton.
            b.withAuthentication(RedisCredentialsProvider.from(() -> RedisCredentials.just(user, password.get())));
        } else if (a.username().isPresent()) {
            b.withAuthentication(a.username().get(), a.password().orElse(new char[0]));
        } else if (a.password().isPresent()) {
            b.withPassword(a.password().get());
        }
        return b.build();
    }

    /**
     * One sentinel, with the sentinels' own credentials if any: Lettuce gives the main URI's credentials to the data
     * nodes only, and each sentinel authenticates with what its own URI carries.
     */
    private static RedisURI sentinelUri(RedisAddress.HostAndPort sentinel, BatonConfig config) {
        RedisURI.Builder b = RedisURI.builder().withHost(sentinel.host()).withPort(sentinel.port())
                .withTimeout(config.commandTimeout());
        if (config.sentinelPassword().isPresent()) {
            String user = config.sentinelUsername().orElse(null);
            Supplier<char[]> password = config.sentinelPassword().get();
            b.withAuthentication(RedisCredentialsProvider.from(() -> RedisCredentials.just(user, password.get())));
        }
        return b.build();
    }

    public static RedisGateway connect(BatonConfig config) {
        return new RedisGateway(config, null, null);
    }

    /**
     * A gateway to one server of several, on resources the caller shares between them and shuts down itself: a
     * Redlock master ({@link QuorumTransport}). Every other setting comes from {@code config}.
     *
     * @param node   the server, a {@code redis://} or {@code rediss://} URI
     * @param shared the client resources to run on
     */
    static RedisGateway connectNode(BatonConfig config, String node, ClientResources shared) {
        return new RedisGateway(config, RedisAddress.parse(node), shared);
    }

    /**
     * Client resources of Baton's own. How soon Baton is back after Redis is: the delay between reconnection
     * attempts doubles from 10 ms and is capped at 250 ms (with jitter, so that many clients do not knock in step),
     * so a Redis that restarts or comes back from a network cut is used again within about a quarter of a second;
     * an attempt that finds the port closed costs one refused connect.
     */
    static ClientResources ownResources() {
        return ClientResources.builder()
                .reconnectDelay(Delay.equalJitter(Duration.ofMillis(10), Duration.ofMillis(250), 2,
                        TimeUnit.MILLISECONDS))
                .build();
    }

    /** host:port of the server, never with credentials. */
    public String endpoint() {
        return endpoint;
    }

    public Duration commandTimeout() {
        return commandTimeout;
    }

    /**
     * Runs a script by SHA; on NOSCRIPT (after a restart or SCRIPT FLUSH) sends the body, which also reloads it. On a
     * cluster, a script refused with TRYAGAIN (its keys are being moved to another node, some already are) is sent
     * again after a few milliseconds, until the command timeout: Redis ran none of it, and the move takes moments.
     */
    public <T> CompletableFuture<T> run(Script script, String[] keys, String... args) {
        return run(script, keys, args, 0, FIRST_REHASH_RETRY_MILLIS);
    }

    /** @param rehashDeadline System.nanoTime() until which TRYAGAIN is retried; 0 until the first one came */
    private <T> CompletableFuture<T> run(Script script, String[] keys, String[] args,
                                         long rehashDeadline, long retryMillis) {
        if (script.isInOrder()) {
            try {
                return scripting.<T>eval(script.body(), script.output(), keys,
                        args).toCompletableFuture().exceptionallyCompose(
                        e -> afterFailure(e, script, keys, args, rehashDeadline, retryMillis));
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(translate(e));
            }
        }
        CompletableFuture<T> bySha;
        try {
            bySha = scripting.<T>evalsha(script.sha(), script.output(), keys, args).toCompletableFuture();
        } catch (RuntimeException e) { // a closed connection may refuse at once instead of failing the future
            return CompletableFuture.failedFuture(translate(e));
        }
        // One stage on the success path; the fallback, the retry and the translation only cost on failure.
        return bySha.exceptionallyCompose(e -> unwrap(e) instanceof RedisNoScriptException
                ? scripting.<T>eval(script.body(), script.output(), keys,
                        args).toCompletableFuture().exceptionallyCompose(
                        again -> afterFailure(again, script, keys, args, rehashDeadline, retryMillis))
                : afterFailure(e, script, keys, args, rehashDeadline, retryMillis));
    }

    private <T> CompletableFuture<T> afterFailure(Throwable failure, Script script, String[] keys, String[] args,
            long rehashDeadline,
                                                  long retryMillis) {
        if (cluster && rehashing(failure)) {
            long deadline = rehashDeadline != 0 ? rehashDeadline : System.nanoTime() + commandTimeout.toNanos();
            if (deadline - System.nanoTime() > TimeUnit.MILLISECONDS.toNanos(retryMillis)) {
                Executor later = CompletableFuture.delayedExecutor(retryMillis, TimeUnit.MILLISECONDS);
                return CompletableFuture.runAsync(() -> { }, later).thenCompose(v -> run(script, keys, args,
                        deadline, Math.min(2 * retryMillis, MAX_REHASH_RETRY_MILLIS)));
            }
        }
        return CompletableFuture.failedFuture(translate(failure));
    }

    /** TRYAGAIN: a multi-key command whose keys are split between two nodes while their slot migrates. */
    private static boolean rehashing(Throwable failure) {
        Throwable e = unwrap(failure);
        return e instanceof RedisCommandExecutionException && e.getMessage() != null
                && e.getMessage().startsWith("TRYAGAIN");
    }

    /**
     * {@code SCAN} with Lettuce's cursor, which on a Cluster walks every master in turn (its cursor carries the node
     * it is on), and behind Sentinel the master.
     */
    @Override
    public KeyScan scan(String match, int count) {
        ScanArgs args = ScanArgs.Builder.matches(match).limit(count);
        return new KeyScan() {
            private ScanCursor cursor = ScanCursor.INITIAL;
            private boolean finished;
            private long calls;

            @Override
            public CompletableFuture<List<String>> next() {
                if (finished) {
                    throw new IllegalStateException("the scan is finished");
                }
                calls++;
                return keyCommands.scan(cursor, args).toCompletableFuture().handle((page, e) -> {
                    if (e != null) {
                        throw translate(e);
                    }
                    cursor = page;
                    finished = page.isFinished();
                    return page.getKeys();
                });
            }

            @Override
            public boolean finished() {
                return finished;
            }

            @Override
            public long calls() {
                return calls;
            }
        };
    }

    @Override
    public CompletableFuture<Boolean> exists(String key) {
        return keyCommands.exists(key).toCompletableFuture()
                .handle((n, e) -> {
                    if (e != null) {
                        throw translate(e);
                    }
                    return n > 0;
                });
    }

    /** Opens the (one) pub/sub connection of this Baton; Lettuce re-subscribes its channels after reconnecting. */
    public CompletableFuture<StatefulRedisPubSubConnection<String, String>> connectPubSub() {
        CompletableFuture<? extends StatefulRedisPubSubConnection<String, String>> connecting =
                client instanceof RedisClusterClient c
                        // A classic PUBLISH reaches every node of a cluster, so one subscription on any node hears
                        // it; an SSUBSCRIBE is routed by Lettuce to the node that owns the channel's slot, whose
                        // messages reach this connection's listeners only with node message propagation.
                        ? c.connectPubSubAsync(StringCodec.UTF8).thenApply(conn -> {
                            conn.setNodeMessagePropagation(true);
                            return conn;
                        }).toCompletableFuture()
                        : ((RedisClient) client).connectPubSubAsync(StringCodec.UTF8, uri).toCompletableFuture();
        return connecting.<StatefulRedisPubSubConnection<String, String>>thenApply(c -> c)
                .whenComplete((c, e) -> pubSub = c)
                .exceptionallyCompose(e -> CompletableFuture.failedFuture(translate(e)));
    }

    @Override
    public Subscriptions subscriptions(Subscriptions.Listener listener) {
        subscriptionListeners.add(listener);
        return new LettuceSubscriptions(this, listener);
    }

    /**
     * The connections for writes that wait for replicas ({@code WAIT}), apart from the shared command connection;
     * opened on first use. Standalone and Sentinel only: on a cluster, {@code WAIT} would have to reach the master of
     * each key's slot.
     *
     * @throws UnsupportedOperationException on a cluster
     * @throws IllegalStateException         once closed
     */
    @Override
    public <T> CompletableFuture<AcknowledgedWrites.Reply<T>> runAcknowledged(Script script, String[] keys,
            String[] args,
                                                                            int replicas, Duration timeout) {
        return acknowledgedWrites().run(script, keys, args, replicas, timeout);
    }

    private synchronized AcknowledgedWrites acknowledgedWrites() {
        if (cluster) {
            throw new UnsupportedOperationException("replica-acknowledged writes are not supported on a Redis Cluster");
        }
        if (closing) {
            throw new IllegalStateException("this Baton is closed");
        }
        if (acknowledgedWrites == null) {
            acknowledgedWrites = new AcknowledgedWrites(this, client.getResources(), uri, client.getOptions(),
                    commandTimeout);
        }
        return acknowledgedWrites;
    }

    /** A {@code PING}: whether Redis answers at all. */
    public CompletableFuture<String> ping() {
        try {
            return base.ping().toCompletableFuture();
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(translate(e));
        }
    }

    /**
     * Waits for a future of this gateway in a blocking call, bounded by the command timeout (plus a margin for
     * the NOSCRIPT fallback), so that no blocking call can hang. The wait ignores interrupts and keeps them for the
     * caller: the command is already on its way, and a thread whose interrupt flag is set must still be able to
     * unlock in its {@code finally} block.
     */
    public <T> T await(CompletionStage<T> stage) {
        return await(stage, awaitBound, commandTimeout);
    }

    /** {@link #await(CompletionStage)} with a shorter bound of its own, for calls in a hurry (rate-limit decisions). */
    public <T> T await(CompletionStage<T> stage, Duration timeout) {
        return await(stage, timeout, timeout);
    }

    private <T> T await(CompletionStage<T> stage, Duration bound, Duration reported) {
        CompletableFuture<T> future = stage.toCompletableFuture();
        // The system clock, not the runtime's ticker: this bounds how long a real thread blocks in Future.get, which
        // measures its timeout on System.nanoTime itself.
        long deadline = System.nanoTime() + bound.toNanos();
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    return future.get(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } catch (ExecutionException e) {
            throw translate(e);
        } catch (TimeoutException e) {
            throw unavailable("did not answer within " + reported, e);
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /**
     * The future, failing with {@link BatonUnavailableException} if it is not complete within {@code timeout}; for
     * asynchronous calls in a hurry. (The command itself stays in flight until Lettuce's own timeout.)
     */
    public <T> CompletableFuture<T> within(CompletableFuture<T> future, Duration timeout) {
        return future.orTimeout(timeout.toNanos(), TimeUnit.NANOSECONDS).exceptionallyCompose(e ->
                CompletableFuture.failedFuture(unwrap(e) instanceof TimeoutException
                        ? unavailable("did not answer within " + timeout, e) : translate(e)));
    }

    /** Maps any failure of a Redis call to the exception Baton's callers see. */
    public RuntimeException translate(Throwable failure) {
        Throwable e = unwrap(failure);
        if (e instanceof BatonException b) {
            return b;
        }
        if (e instanceof RedisCommandTimeoutException) {
            return unavailable("did not answer within " + commandTimeout, e);
        }
        if (e instanceof RedisLoadingException || e instanceof RedisBusyException
                || e instanceof RedisReadOnlyException || refusedByReplicaInScript(e) || rehashing(e)) {
            return unavailable("cannot serve Baton right now (" + e.getMessage() + ")", e);
        }
        BatonException misconfigured = misconfiguration(e);
        if (misconfigured != null) {
            return misconfigured;
        }
        if (e instanceof RedisCommandExecutionException) {
            return new BatonException("Redis at " + endpoint + " rejected a command: " + e.getMessage(), e);
        }
        if (e instanceof RedisException || e instanceof IOException) {
            return unavailable("could not be reached", e);
        }
        if (e instanceof RuntimeException r) {
            return r;
        }
        return new BatonException("unexpected failure talking to Redis at " + endpoint, e);
    }

    /**
     * A script's write refused because the node is a replica now (a master demoted by a failover, until the client
     * follows the promotion). Redis 7 replies READONLY, which Lettuce maps to {@link RedisReadOnlyException}; Redis 6.2
     * wraps the refusal in a script error ("ERR Error running script ... -READONLY You can't write against a read only
     * replica."). Either way the next try on the new master may succeed: an outage, not a rejected command.
     */
    private static boolean refusedByReplicaInScript(Throwable e) {
        return e instanceof RedisCommandExecutionException && e.getMessage() != null
                && e.getMessage().contains("-READONLY ");
    }

    /**
     * Why the first connection failed, told as what was found: a configuration mistake if Redis said so or the
     * address leads to no Redis (a host name that does not resolve, a server of another protocol), otherwise
     * unreachable.
     */
    private RuntimeException connectFailure(RuntimeException e, Duration took) {
        RuntimeException unresolved = unresolvedHost(e);
        if (unresolved != null) {
            return unresolved; // first: no probe below could reach a host that has no address
        }
        // Then a plain port read as TLS, which fails in ways the TLS explanations below could take for their own.
        if (address.tls() && redisReply(e) == null) {
            PlainRedisProbe.Answer plain = PlainRedisProbe.kind(PlainRedisProbe.firstReply(address.hosts().get(0),
                    commandTimeout));
            if (plain == PlainRedisProbe.Answer.REDIS) {
                return new BatonException("Redis at " + endpoint + " answers plain, unencrypted Redis, but the uri "
                        + "asks for TLS (" + address.scheme() + "://): use " + address.scheme().replace("rediss",
                        "redis") + "://, or connect to the server's TLS port", e);
            }
            if (!address.sentinel() && !cluster
                    && (plain == PlainRedisProbe.Answer.HTTP || plain == PlainRedisProbe.Answer.OTHER)) {
                return notRedis(plain, e);
            }
        }
        BatonException tls = TlsHandshakeFailure.explain(e, "Redis at " + endpoint);
        if (tls != null) {
            return tls;
        }
        if (address.sentinel()) {
            RuntimeException sentinel = SentinelLookupFailure.explain(e, address, commandTimeout,
                    config.sentinelPassword().isPresent(), credentialsGiven);
            if (sentinel != null) {
                return sentinel;
            }
        }
        BatonException misconfigured = misconfiguration(e);
        if (misconfigured != null) {
            return misconfigured;
        }
        if (cluster && mentionsAnywhere(e, "cluster support disabled")) {
            return new BatonException("Redis at " + endpoint + " is not a cluster node (cluster support is disabled "
                    + "there): connect to a standalone server with uri(...), or give cluster(...) the seeds of a Redis "
                    + "Cluster", e);
        }
        if (!address.tls() && (closedEarly(e) || mentionsTimeout(e)) && speaksTls(e)) {
            return plainUriOnTlsPort(e);
        }
        if (!address.tls() && !address.sentinel() && !cluster && (protocolError(e) || closedEarly(e))) {
            // Something answered, and Lettuce could not read it as Redis (or it hung up after answering): ask it
            // once more to tell an HTTP server from Redis that hung up for its own reasons (handled below).
            PlainRedisProbe.Answer answer = PlainRedisProbe.kind(PlainRedisProbe.firstReply(address.hosts().get(0),
                    commandTimeout));
            if (answer == PlainRedisProbe.Answer.HTTP || answer == PlainRedisProbe.Answer.OTHER) {
                return notRedis(answer, e);
            }
            if (protocolError(e) && answer == PlainRedisProbe.Answer.NOTHING) {
                return notRedis(mentionsAnywhere(e, "(<)") || mentionsAnywhere(e, "(H)")
                        ? PlainRedisProbe.Answer.HTTP : PlainRedisProbe.Answer.OTHER, e);
            }
        }
        if (took.compareTo(commandTimeout) >= 0 || mentionsTimeout(e)) {
            return unavailable("did not complete the connection within " + commandTimeout, e);
        }
        if (closedEarly(e) && !address.tls() && !cluster) {
            BatonException refused = credentialsRefused();
            if (refused != null) {
                return refused;
            }
        }
        if (closedEarly(e)) {
            return unavailable("closed the connection while Baton was connecting ("
                    + (credentialsGiven ? "Redis 6 does that on a wrong password; " : "")
                    + (address.tls() ? "is it a TLS port?)" : "if that port expects TLS, use rediss://)"), e);
        }
        if (cluster) {
            return unavailable("could not be reached (none of the seeds answered)", e);
        }
        if (Causes.find(e, RedisGateway::refused) != null) {
            // Kept an outage: a server that is restarting refuses connections for a moment, and retrying helps.
            return unavailable("could not be reached: nothing listens on that port (connection refused)", e);
        }
        // A failure of a shape not recognised above (Lettuce and Netty word a hang-up in several ways, depending on
        // timing): a TLS port is still told as such, since a plain client cannot reach it in any other way.
        if (!address.tls() && speaksTls(e)) {
            return plainUriOnTlsPort(e);
        }
        return unavailable("could not be reached", e);
    }

    /**
     * Whether the (first) server of the uri speaks TLS, asked with a handshake of its own. A server that hung up on
     * the plain connection is up and answering, so it is given the whole command timeout to answer the handshake (a
     * loaded machine may take long); otherwise a second at most, since it may not answer at all.
     */
    private boolean speaksTls(Throwable e) {
        Duration wait = closedEarly(e) ? commandTimeout : PlainRedisProbe.shortWait(commandTimeout);
        return PlainRedisProbe.speaksTls(address.hosts().get(0), wait);
    }

    private BatonException plainUriOnTlsPort(Throwable e) {
        return new BatonException("Redis at " + endpoint + " speaks TLS on that port, but the uri asks for plain "
                + "Redis (redis://): use rediss://" + (address.sentinel() ? "" : ", or the server's plain port"), e);
    }

    /**
     * A host name that does not resolve, told as such rather than as an unreachable server: a configuration error
     * (a typo, a name of another network) that no retry cures, unless the resolver itself failed for the moment.
     * Null if no name failed to resolve.
     */
    private RuntimeException unresolvedHost(Throwable e) {
        Throwable unknown = Causes.find(e, t -> t instanceof UnknownHostException);
        if (unknown == null || cluster || address.sentinel()) {
            return null; // a seed or a sentinel of several: the others' failures say more (see the callers above)
        }
        String host = address.hosts().get(0).host();
        String why = String.valueOf(unknown.getMessage());
        if (why.contains("Temporary failure") || why.contains("try again")) {
            return unavailable("could not be reached: its host name '" + host + "' could not be resolved just now "
                    + "(the name service did not answer)", e);
        }
        return new BatonException("Redis at " + endpoint + ": host name '" + host + "' does not resolve (no such "
                + "host is known to the name service): check the host of the uri", e);
    }

    /** Something answered on the port, but not as Redis: the uri points at another server, most often a web one. */
    private BatonException notRedis(PlainRedisProbe.Answer answer, Throwable e) {
        return new BatonException("Redis at " + endpoint + " answered, but not as Redis"
                + (answer == PlainRedisProbe.Answer.HTTP ? " (it answers like an HTTP server)" : "")
                + ": check the host and port of the uri", e);
    }

    /** Whether Lettuce could not parse what the server sent, e.g. {@code Invalid first byte: 60 (<)} from HTML. */
    private static boolean protocolError(Throwable e) {
        return Causes.find(e, t -> t.getClass().getSimpleName().equals("RedisProtocolException")
                || String.valueOf(t.getMessage()).startsWith("Invalid first byte")) != null;
    }

    /** A connection the host refused: it is up, but nothing listens on the port. */
    private static boolean refused(Throwable t) {
        return t instanceof ConnectException && String.valueOf(t.getMessage()).contains("refused");
    }

    /**
     * A failure that retrying will not cure, told as what the user has to change; null if it is none of them. Redis's
     * own replies name no credentials, so they may be quoted.
     */
    private BatonException misconfiguration(Throwable e) {
        String reply = redisReply(e);
        if (reply == null) {
            return null;
        }
        String at = "Redis at " + endpoint;
        if (reply.startsWith("NOAUTH")) {
            return new BatonException(credentialsGiven
                    ? at + " did not accept the authentication Baton sent (" + reply + ")"
                    // Worded for every way Baton is configured: a program, the starter's properties, the demo's
                    // command line; only the uri form is common to all of them.
                    : at + " requires authentication, and no password was given: put it in the uri as "
                            + "redis://:password@host:port (redis://user:password@host:port for an ACL user, "
                            + "percent-encoded), or give it as the configuration's password", e);
        }
        if (reply.startsWith("WRONGPASS") || reply.contains("invalid password")) {
            return new BatonException(at + " refused the credentials: wrong user name or password, or the user is "
                    + "disabled", e);
        }
        if (reply.contains("without any password configured")) {
            return new BatonException(at + " has no password set for its default user, but a password was given: "
                    + "drop it, or give the name of an ACL user that has one", e);
        }
        // Inside a script, Redis says "can't run this command..." and Valkey 8 "ACL failure in script: User ... has no
        // permissions to run the 'time' command" (keys and channels: "... No permissions to access a key").
        if (reply.startsWith("NOPERM") || reply.contains("can't run this command or subcommand")
                || reply.contains("can't publish to the channel") || reply.contains("No permissions to access")
                || reply.contains("ACL failure in script")) {
            return new BatonException(at + " refused a command for lack of permission (" + reply + "): the Redis "
                    + "user needs the ACL rule in docs/acl.md", e);
        }
        if (reply.startsWith("MOVED") || reply.startsWith("ASK ") || reply.startsWith("CLUSTERDOWN")) {
            return new BatonException(at + " is a node of a Redis Cluster (" + reply + "): connect with "
                    + "BatonConfig.Builder.cluster(seed URIs) rather than uri(...)", e);
        }
        if (reply.contains("DB index is out of range")) {
            return new BatonException(at + " has no database " + address.database() + " (" + reply + "): check the "
                    + "database number of the uri (a server has 16, numbered 0 to 15, unless configured otherwise)",
                    e);
        }
        return null;
    }

    /** The error reply of Redis somewhere in the cause chain, or null if Redis did not answer with an error. */
    private static String redisReply(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            String m = t.getMessage();
            if (t instanceof RedisCommandExecutionException && m != null) {
                return m;
            }
            if (m != null && (m.startsWith("NOAUTH") || m.startsWith("WRONGPASS") || m.startsWith("NOPERM"))) {
                return m;
            }
        }
        return null;
    }

    private static boolean mentionsTimeout(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof RedisCommandTimeoutException || t instanceof TimeoutException
                    || t instanceof java.net.SocketTimeoutException
                    || t.getClass().getSimpleName().contains("Timeout")) {
                return true;
            }
        }
        return false;
    }

    /**
     * After a hang-up during a handshake that carried credentials: asks the server about them on a socket of its own,
     * and returns the refusal to report, or null if they were not the problem (or cannot be checked this way).
     */
    private BatonException credentialsRefused() {
        if (!credentialsGiven || address.sentinel()) {
            return null;
        }
        String user = config.username().orElse(address.username().orElse(null));
        boolean supplied = config.password().isPresent(); // a fresh array of our own, cleared after use
        char[] password = supplied ? config.password().get().get() : address.password().orElse(null);
        if (password == null) {
            return null;
        }
        try {
            String reply = PlainRedisProbe.authReply(address.hosts().get(0), user, password, commandTimeout);
            return reply == null ? null : misconfiguration(new RedisCommandExecutionException(reply.substring(1)));
        } finally {
            if (supplied) {
                Arrays.fill(password, '\0');
            }
        }
    }

    /** Whether a message of the failure, its causes or what they suppressed contains the phrase. */
    private static boolean mentionsAnywhere(Throwable e, String phrase) {
        if (e == null) {
            return false;
        }
        if (e.getMessage() != null && e.getMessage().contains(phrase)) {
            return true;
        }
        for (Throwable s : e.getSuppressed()) {
            if (mentionsAnywhere(s, phrase)) {
                return true;
            }
        }
        return e.getCause() != e && mentionsAnywhere(e.getCause(), phrase);
    }

    /**
     * Whether the server hung up during the handshake, rather than never answering. A TLS port does that to a plain
     * client (it reads no TLS record, and closes), and Lettuce words it according to when it notices: "Connection
     * closed prematurely" (a close during its handshake), "Connection reset" (a reset read), a closed channel or a
     * "Broken pipe" (a write after the close), or "RedisHandshakeHandler not registered" (the channel was closed, and
     * its handlers removed, before Lettuce could start the handshake at all: seen on a loaded machine).
     */
    static boolean closedEarly(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String m = t.getMessage();
            if (t instanceof ClosedChannelException
                    || (m != null && (m.contains("Connection closed prematurely") || m.contains("Connection reset")
                    || m.contains("Broken pipe") || m.contains("RedisHandshakeHandler not registered")))) {
                return true;
            }
        }
        return false;
    }

    private BatonUnavailableException unavailable(String what, Throwable cause) {
        return new BatonUnavailableException("Redis at " + endpoint + " " + what, cause);
    }

    public static Throwable unwrap(Throwable e) {
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    @Override
    public void close() {
        AcknowledgedWrites acknowledged;
        synchronized (this) {
            closing = true;
            acknowledged = acknowledgedWrites;
        }
        if (acknowledged != null) {
            acknowledged.close(); // before the resources it runs on may be shut down
        }
        shutdown(); // closes the command and pub/sub connections with the client
    }

    private void shutdown() {
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        if (ownResources != null) {
            ownResources.shutdown(0, 2, TimeUnit.SECONDS); // the application's own are the application's to end
        }
    }

    /**
     * Logs lost and regained connections: while one is down, calls fail fast and Lettuce reconnects in the
     * background, and an operator should be able to see when and for how long that happened. Only Baton's own two
     * connections are logged as warnings; the short-lived ones Lettuce opens to look at a Sentinel topology come and
     * go by design, so they are logged at debug.
     */
    private final class ConnectionLog implements RedisConnectionStateListener {
        private volatile boolean lost;
        private volatile boolean pubSubLost;
        /**
         * On a cluster, where each of Lettuce's node connections last connected, and whether it was lost since: a
         * lost node connection means commands for that node's slots fail until it is back or a replica took over.
         */
        private final Map<RedisChannelHandler<?, ?>, NodeLink> nodes = Collections.synchronizedMap(new WeakHashMap<>());

        @Override
        public void onRedisDisconnected(RedisChannelHandler<?, ?> connection) {
            if (!isOurs(connection)) {
                NodeLink node = nodes.get(connection);
                // Lettuce's short-lived topology connections are closed on purpose; a node connection that
                // dropped by itself is still open and reconnecting.
                if (node != null && !connection.isClosed() && !closing) {
                    node.lost = true;
                    log.warn("lost the connection to cluster node {} of {}; reconnecting in the background (commands "
                            + "for its slots fail until it is back or a replica has taken over)", node.address,
                            endpoint);
                } else {
                    log.debug("a topology connection of Lettuce's to Redis at {} closed", endpoint);
                }
            } else if (!closing) { // (Lettuce marks the connection inactive before it tells listeners)
                lost = true;
                if (connection == pubSub) {
                    pubSubLost = true;
                }
                log.warn("lost the {} connection to Redis at {}; reconnecting in the background (calls fail fast "
                        + "until then)", kind(connection), endpoint);
            }
        }

        @Override
        public void onRedisConnected(RedisChannelHandler<?, ?> connection, SocketAddress socketAddress) {
            if (isOurs(connection)) {
                if (lost) {
                    log.info("reconnected the {} connection to Redis at {}", kind(connection), endpoint);
                }
                if (connection == pubSub && pubSubLost) {
                    pubSubLost = false;
                    subscriptionListeners.forEach(Subscriptions.Listener::reconnected);
                }
            } else if (cluster) {
                NodeLink node = nodes.computeIfAbsent(connection, c -> new NodeLink());
                if (node.lost) {
                    node.lost = false;
                    log.info("reconnected to cluster node {} of {}", socketAddress, endpoint);
                }
                node.address = String.valueOf(socketAddress);
            }
        }

        @Override
        public void onRedisExceptionCaught(RedisChannelHandler<?, ?> connection, Throwable cause) {
            log.debug("{} connection to Redis at {} failed: {}", kind(connection), endpoint, cause.toString());
        }

        private boolean isOurs(RedisChannelHandler<?, ?> c) {
            return c == connection || c == pubSub;
        }

        private String kind(RedisChannelHandler<?, ?> connection) {
            return connection instanceof StatefulRedisPubSubConnection ? "pub/sub" : "command";
        }
    }

    /** What {@link ConnectionLog} remembers of one node connection. */
    private static final class NodeLink {
        volatile String address;
        volatile boolean lost;
    }
}
