package dev.baton.internal.transport;

import dev.baton.BatonConfig;
import dev.baton.BatonUnavailableException;
import io.lettuce.core.RedisCommandTimeoutException;
import io.lettuce.core.resource.ClientResources;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;

/**
 * The transport of a Redlock: N independent masters (N odd, at least 3), each behind a {@link RedisGateway} of its
 * own, all on one set of Lettuce resources. It sends a call to every master at once ({@link #runOnEach}) and leaves
 * the counting to the caller (the Redlock driver decides per operation what a majority of replies means); pub/sub is
 * subscribed on every master, so a release heard on any of them wakes a waiter ({@link QuorumSubscriptions}).
 *
 * <p>What makes no sense on independent masters is refused: a single script run ({@link #run}), replica
 * acknowledgement, a single {@code EXISTS}. Primitives that need them are refused by name before they get here.
 *
 * <p>The Baton starts once a majority of the masters is reachable; the others are connected in the background
 * ({@link IndependentMaster}). Thread-safe.
 */
public final class QuorumTransport implements Transport {
    private final List<IndependentMaster> masters;
    private final int quorum;
    private final ClientResources ownResources;
    private final Duration commandTimeout;
    private final String endpoint;
    private final List<QuorumSubscriptions> subscriptions = new CopyOnWriteArrayList<>();
    private volatile boolean closed;

    private QuorumTransport(List<IndependentMaster> masters, ClientResources ownResources, Duration commandTimeout) {
        this.masters = List.copyOf(masters);
        this.quorum = masters.size() / 2 + 1;
        this.ownResources = ownResources;
        this.commandTimeout = commandTimeout;
        this.endpoint = "redlock " + masters.stream().map(IndependentMaster::endpoint).collect(Collectors.joining(","));
        for (int i = 0; i < masters.size(); i++) {
            int index = i;
            masters.get(i).onLateConnect(g -> subscriptions.forEach(s -> s.connected(index, g)));
        }
    }

    /**
     * Connects to every master of {@code config.redlockMasters()} at once.
     *
     * @throws BatonUnavailableException if fewer than a majority could be reached (the message names each one that
     *                                   could not, and why)
     */
    public static QuorumTransport connect(BatonConfig config) {
        List<String> uris = config.redlockMasters();
        ClientResources own = config.clientResources().isPresent() ? null : RedisGateway.ownResources();
        ClientResources resources = config.clientResources().orElse(own);
        // In parallel: each connect blocks until the master answers or the connect timeout passes.
        List<CompletableFuture<IndependentMaster>> connecting = new ArrayList<>();
        for (String uri : uris) {
            CompletableFuture<IndependentMaster> f = new CompletableFuture<>();
            Thread t = new Thread(() -> {
                try {
                    f.complete(IndependentMaster.connect(config, uri, resources));
                } catch (RuntimeException | Error e) {
                    f.completeExceptionally(e);
                }
            }, "baton-redlock-connect");
            t.setDaemon(true);
            t.start();
            connecting.add(f);
        }
        List<IndependentMaster> masters = connecting.stream().map(CompletableFuture::join).toList();
        QuorumTransport transport = new QuorumTransport(masters, own, config.commandTimeout());
        long reached = masters.stream().filter(IndependentMaster::connected).count();
        if (reached < transport.quorum) {
            transport.close();
            throw new BatonUnavailableException("only " + reached + " of " + masters.size() + " Redlock masters "
                    + "could be reached (" + transport.quorum + " needed): " + masters.stream()
                    .filter(m -> !m.connected()).map(m -> m.endpoint() + " (" + m.failure() + ")")
                    .collect(Collectors.joining("; ")), null);
        }
        return transport;
    }

    /**
     * N masters already connected, each through a transport of its own, in this order: for unit tests of the Redlock
     * on fake transports. Closing it closes them.
     */
    static QuorumTransport over(List<? extends Transport> masters, Duration commandTimeout) {
        List<IndependentMaster> connected = new ArrayList<>(masters.size());
        for (Transport t : masters) {
            connected.add(new IndependentMaster(t.endpoint(), t));
        }
        return new QuorumTransport(connected, null, commandTimeout);
    }

    /** How many masters there are. */
    public int size() {
        return masters.size();
    }

    /** How many masters make a majority: {@code size() / 2 + 1}. */
    public int quorum() {
        return quorum;
    }

    /** host:port of master {@code i}. */
    public String endpoint(int i) {
        return masters.get(i).endpoint();
    }

    /**
     * Runs a script on every master at once.
     *
     * @return one future per master, in the masters' order, each completing with that master's raw reply or failing
     *         with a translated exception ({@link BatonUnavailableException} for a master that is down or did not
     *         answer within the command timeout)
     */
    public <T> List<CompletableFuture<T>> runOnEach(Script script, String[] keys,
                                                    String... args) {
        List<CompletableFuture<T>> calls = new ArrayList<>(masters.size());
        for (IndependentMaster m : masters) {
            calls.add(m.call(g -> g.run(script, keys, args)));
        }
        return calls;
    }

    /**
     * Whether a call of one master that failed may still have run, or may yet run, there: it timed out, or its
     * connection was lost while it was on its way. Not a call refused before it was sent (no connection) or answered
     * with an error. Read here, where the client's exception types are known.
     */
    public static boolean mayHaveRun(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            String m = t.getMessage();
            if (t instanceof RedisCommandTimeoutException || t instanceof IOException
                    || (m != null && (m.startsWith("Connection closed") || m.startsWith("Connection disconnected")))) {
                return true;
            }
        }
        return false;
    }

    /** Runs a script call on every master at once; see {@link #runOnEach(Script, String[], String...)}. */
    public <T> List<CompletableFuture<T>> runOnEach(ScriptCall call) {
        return runOnEach(call.script(), call.keys(), call.args());
    }

    /** Runs a script call on master {@code i} alone; see {@link #runOnEach(Script, String[], String...)}. */
    public <T> CompletableFuture<T> runOn(int i, ScriptCall call) {
        return runOn(i, call.script(), call.keys(), call.args());
    }

    /** Runs a script on master {@code i} alone; see {@link #runOnEach}. */
    public <T> CompletableFuture<T> runOn(int i, Script script, String[] keys,
                                          String... args) {
        return masters.get(i).call(g -> g.run(script, keys, args));
    }

    /** {@code EXISTS key} on every master; see {@link #runOnEach}. */
    public List<CompletableFuture<Boolean>> existsOnEach(String key) {
        List<CompletableFuture<Boolean>> calls = new ArrayList<>(masters.size());
        for (IndependentMaster m : masters) {
            calls.add(m.call(g -> g.exists(key)));
        }
        return calls;
    }

    /** Refused: a script of a Redlock runs on every master ({@link #runOnEach}). */
    @Override
    public <T> CompletableFuture<T> run(Script script, String[] keys, String... args) {
        throw new UnsupportedOperationException("a single script run has no meaning on independent Redlock masters");
    }

    /** Refused: a Redlock's masters have no replicas that matter. */
    @Override
    public <T> CompletableFuture<AcknowledgedWrites.Reply<T>> runAcknowledged(Script script, String[] keys,
            String[] args,
                                                                            int replicas, Duration timeout) {
        throw new UnsupportedOperationException("replica-acknowledged writes are not supported with Redlock");
    }

    /**
     * Every master's keys, one master after the other (a key held by several masters is returned by each). A master
     * that is not connected fails the walk: an operator's listing should not silently miss a master.
     */
    @Override
    public KeyScan scan(String match, int count) {
        return new KeyScan() {
            private int master;
            private KeyScan current;
            private long earlierCalls;

            @Override
            public CompletableFuture<List<String>> next() {
                if (finished()) {
                    throw new IllegalStateException("the scan is finished");
                }
                if (current == null) {
                    CompletableFuture<KeyScan> opened = masters.get(master).call(g -> CompletableFuture.completedFuture(
                            g.scan(match, count)));
                    return opened.thenCompose(scan -> {
                        current = scan;
                        return step();
                    });
                }
                return step();
            }

            private CompletableFuture<List<String>> step() {
                return current.next().thenApply(keys -> {
                    if (current.finished()) {
                        earlierCalls += current.calls();
                        current = null;
                        master++;
                    }
                    return keys;
                });
            }

            @Override
            public boolean finished() {
                return master >= masters.size();
            }

            @Override
            public long calls() {
                return earlierCalls + (current == null ? 0 : current.calls());
            }
        };
    }

    /** Refused: see {@link #existsOnEach}. */
    @Override
    public CompletableFuture<Boolean> exists(String key) {
        throw new UnsupportedOperationException("a single EXISTS has no meaning on independent Redlock masters");
    }

    /** A {@code PING} to every master: answers once a majority answered, fails once that can no longer happen. */
    @Override
    public CompletableFuture<String> ping() {
        CompletableFuture<String> done = new CompletableFuture<>();
        AtomicInteger ok = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        for (IndependentMaster m : masters) {
            m.call(Transport::ping).whenComplete((pong, e) -> {
                if (e == null) {
                    if (ok.incrementAndGet() == quorum) {
                        done.complete(pong);
                    }
                } else if (failed.incrementAndGet() == masters.size() - quorum + 1) {
                    done.completeExceptionally(new BatonUnavailableException("fewer than " + quorum + " of "
                            + masters.size() + " Redlock masters answered PING: " + e.getMessage(), e));
                }
            });
        }
        return done;
    }

    @Override
    public Subscriptions subscriptions(Subscriptions.Listener listener) {
        QuorumSubscriptions s = new QuorumSubscriptions(masters, quorum, listener);
        subscriptions.add(s);
        return s;
    }

    @Override
    public <T> T await(CompletionStage<T> stage) {
        return anyGateway().await(stage);
    }

    @Override
    public <T> T await(CompletionStage<T> stage, Duration timeout) {
        return anyGateway().await(stage, timeout);
    }

    @Override
    public <T> CompletableFuture<T> within(CompletableFuture<T> future, Duration timeout) {
        return anyGateway().within(future, timeout);
    }

    @Override
    public RuntimeException translate(Throwable failure) {
        return anyGateway().translate(failure);
    }

    /** A connected master's gateway, for the waiting and translation that do not depend on which one. */
    private Transport anyGateway() {
        for (IndependentMaster m : masters) {
            Transport g = m.gateway();
            if (g != null) {
                return g;
            }
        }
        throw new IllegalStateException("no Redlock master connected"); // a quorum was connected at start
    }

    @Override
    public Duration commandTimeout() {
        return commandTimeout;
    }

    @Override
    public String endpoint() {
        return endpoint;
    }

    @Override
    public boolean isCluster() {
        return false;
    }

    @Override
    public boolean shardedPubSub() {
        return false;
    }

    /** Whether {@link #close()} was called: background work (an undo sent again) stops. */
    public boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        closed = true;
        for (IndependentMaster m : masters) {
            m.close();
        }
        if (ownResources != null) {
            ownResources.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }
}
