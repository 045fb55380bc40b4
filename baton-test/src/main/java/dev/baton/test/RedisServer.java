package dev.baton.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.SeekableByteChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Stream;

/**
 * One real {@code redis-server} process listening on {@code 127.0.0.1} and a free port, without persistence
 * ({@code --save "" --appendonly no}), with its own temporary working directory holding {@code redis.log}.
 *
 * <p>Guarantees:
 * <ul>
 *   <li>{@code start(...)} returns only once the process answers {@code PING} and reports its own pid (so a port
 *       race with another server cannot go unnoticed); startup is retried on a new port (up to 5 times) if the
 *       chosen port was taken in the meantime.</li>
 *   <li>The port stays the server's until it is closed, also while it is stopped or killed: no other server of the
 *       kit gets it, in this JVM or in another one on the machine (test JVMs run side by side), and on Linux it lies
 *       outside the range the system hands out by itself ({@code ip_local_port_range}), so that neither an outgoing
 *       connection nor a listener on port 0 takes it before the server restarts.</li>
 *   <li>{@link #stop()}, {@link #kill()}, {@link #pause()} and {@link #resume()} return only once the process is
 *       actually gone or stopped/continued; {@link #restart()} returns only once the server answers again on the
 *       <em>same</em> port.</li>
 *   <li>{@link #close()} is idempotent and kills the process and deletes the directory. A JVM shutdown hook kills every
 *       server that was not closed, so an aborted test run leaves no {@code redis-server} behind (except after
 *       {@code SIGKILL} of the JVM itself, which no hook survives).</li>
 *   <li>The process' stdout/stderr go to {@code redis.log}, never to a pipe that could fill up and block it.</li>
 * </ul>
 *
 * <p>TLS: {@link #startTls(RedisBinary, TlsFiles, List)} starts a server that speaks TLS only, with certificates
 * from a {@link TlsFiles}; the kit then talks TLS to it too, and everything above holds.
 *
 * <p>Password-protected servers: if the extra options set {@code --requirepass <password>}, the kit authenticates
 * each of its own connections (the readiness probe, {@link #command}, {@link #stop()}) as the default user with that
 * password, so the server keeps every guarantee above and can still be administered, while any other client must
 * authenticate. That is the usual way to test code that logs in as an ACL user: protect the default user, create
 * the user with {@code --user} options or {@code command("ACL", "SETUSER", ...)}, and give the code under test a URI
 * with that user's credentials. The kit keeps using the password given at start, also after {@link #restart()}; if
 * the default user is disabled or its password changed (by options or commands), the server still starts (its
 * identity is then not checked), but {@link #command} and a graceful {@link #stop()} fail with Redis' refusal
 * ({@code stop()} then falls back to signals).
 *
 * <p>Failure behaviour: a server that does not come up within 10 s fails with an {@link IllegalStateException}
 * carrying the tail of its log; the process is killed first. Lifecycle operations are synchronized per server and
 * throw {@link IllegalStateException} once the server is closed (except the idempotent {@code stop}, {@code kill}
 * and {@code close}). Requires a POSIX system ({@code kill} is used for SIGSTOP/SIGCONT).
 *
 * <p>Thread-safe: a test may kill or pause a server while other threads use it, and {@link #command} opens a socket
 * of its own for every call.
 */
public final class RedisServer implements AutoCloseable {

    private static final String HOST = "127.0.0.1";
    private static final int COMMAND_TIMEOUT_MILLIS = 2_000;
    private static final int PROBE_TIMEOUT_MILLIS = 250;
    private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration EXIT_TIMEOUT = Duration.ofSeconds(10);
    private static final Duration GRACEFUL_EXIT_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration SIGNAL_TIMEOUT = Duration.ofSeconds(5);
    private static final Duration POLL_INTERVAL = Duration.ofMillis(10);
    private static final Duration REPLICA_SYNC_TIMEOUT = Duration.ofSeconds(60);
    private static final int PORT_ATTEMPTS = 5;
    private static final int RESTART_ATTEMPTS = 5;
    private static final Duration RESTART_BACKOFF = Duration.ofMillis(200);
    private static final int LOG_TAIL_BYTES = 4_096;
    /** Options the kit sets itself; overriding them would break readiness checks, isolation or cleanup. */
    private static final Set<String> RESERVED_OPTIONS =
            Set.of("--port", "--tls-port", "--bind", "--dir", "--daemonize", "--logfile");
    /** Name of the file written by {@link #startWithConfigFile}, inside the server's directory. */
    private static final String CONFIG_FILE_NAME = "redis.conf";

    private final RedisBinary binary;
    private final List<String> extraArgs;
    /** The default user's password from {@code --requirepass}, for the kit's own connections; null if none. */
    private final String password;
    private final Path dir;
    private final Path logFile;
    /** The configuration file given as the first argument, or null if there is none. */
    private final Path configFile;
    /** The certificates of a TLS-only server, or null for a plain one. */
    private final TlsFiles tls;
    private final int port;

    private volatile Process process;
    private volatile boolean paused;
    private volatile boolean closed;

    private RedisServer(RedisBinary binary, List<String> extraArgs, Path dir, Path configFile, TlsFiles tls,
                        int port) {
        this.binary = binary;
        this.extraArgs = extraArgs;
        this.password = requiredPassword(extraArgs);
        this.dir = dir;
        this.logFile = dir.resolve("redis.log");
        this.configFile = configFile;
        this.tls = tls;
        this.port = port;
    }

    /**
     * Starts a server with the binary found by {@link RedisBinary#locate()} on a free port.
     *
     * @return the running server, answering {@code PING}
     * @throws IllegalStateException if no binary is found or the server does not come up
     */
    public static RedisServer start() {
        return start(List.of());
    }

    /**
     * Starts a server with additional {@code redis-server} options, e.g. {@code List.of("--maxmemory", "10mb")}.
     * They follow the kit's own options, so they may override e.g. {@code --appendonly}; {@code --port},
     * {@code --tls-port}, {@code --bind}, {@code --dir}, {@code --daemonize} and {@code --logfile} are rejected. With
     * {@code --requirepass <password>} the kit authenticates its own connections with that password (see the class
     * documentation), e.g. {@code List.of("--requirepass", "admin-pw", "--user", "app", "on", ">app-pw", "~app:*",
     * "+get")} for a server that only authenticated clients can use, with an ACL user {@code app}.
     *
     * @param extraArgs options and their values, one list element each (an empty string is an empty argument)
     * @return the running server, answering {@code PING}
     * @throws IllegalArgumentException if a reserved option is given
     * @throws IllegalStateException    if no binary is found or the server does not come up
     */
    public static RedisServer start(List<String> extraArgs) {
        return start(RedisBinary.locate(), extraArgs);
    }

    /**
     * Starts a server from {@code binary} with additional options (see {@link #start(List)}).
     *
     * @param binary    the {@code redis-server} to run
     * @param extraArgs options and their values, as for {@link #start(List)}
     * @return the running server, answering {@code PING}
     * @throws IllegalArgumentException if a reserved option is given
     * @throws IllegalStateException    if the server does not come up within 10 s, or no free port could be bound
     *                                  in 5 attempts
     */
    public static RedisServer start(RedisBinary binary, List<String> extraArgs) {
        return start(binary, null, null, extraArgs);
    }

    /**
     * Starts a TLS-only server with the binary found by {@link RedisBinary#locate()}; see
     * {@link #startTls(RedisBinary, TlsFiles, List)}.
     *
     * @param tls       the certificates the server presents and checks clients against
     * @param extraArgs options and their values, as for {@link #start(List)}
     * @return the running server, answering {@code PING} over TLS
     * @throws IllegalArgumentException if a reserved option is given
     * @throws IllegalStateException    if no binary is found, it has no TLS support, or the server does not come up
     */
    public static RedisServer startTls(TlsFiles tls, List<String> extraArgs) {
        return startTls(RedisBinary.locate(), tls, extraArgs);
    }

    /**
     * Starts a server that speaks TLS only: {@code --port 0} (no plain port), {@code --tls-port} on a free port,
     * {@code --tls-cert-file} and {@code --tls-key-file} from {@link TlsFiles#serverCertificate()} and
     * {@link TlsFiles#serverKey()}, {@code --tls-ca-cert-file} from {@link TlsFiles#caCertificate()}, and
     * {@code --tls-auth-clients no}. The extra options follow, so {@code List.of("--tls-auth-clients", "yes")} (or
     * {@code "optional"}) makes clients present a certificate signed by the CA, and {@code --tls-replication yes}
     * makes a replica replicate over TLS. {@link #uri()} is then {@code rediss://127.0.0.1:<port>}.
     *
     * <p>The kit's own connections ({@link #command}, the readiness probe, {@link #stop()}) use TLS too: they trust the
     * CA of {@code tls} and present its client certificate, so they work whatever {@code --tls-auth-clients} says, and
     * every guarantee of the class documentation holds.
     *
     * @param binary    the {@code redis-server} to run; it must be built with TLS
     * @param tls       the certificates the server presents and checks clients against
     * @param extraArgs options and their values, as for {@link #start(List)}
     * @return the running server, answering {@code PING} over TLS
     * @throws IllegalArgumentException if a reserved option is given ({@code --tls-port} is one)
     * @throws IllegalStateException    if the binary has no TLS support (before anything is started), or the server
     *                                  does not come up (see {@link #start(RedisBinary, List)})
     */
    public static RedisServer startTls(RedisBinary binary, TlsFiles tls, List<String> extraArgs) {
        Objects.requireNonNull(binary, "binary");
        Objects.requireNonNull(tls, "tls");
        requireTlsSupport(binary, extraArgs);
        return start(binary, null, tls, extraArgs);
    }

    /**
     * Starts a server whose first argument is a configuration file {@value #CONFIG_FILE_NAME} in its own directory,
     * holding {@code configText}, followed by the kit's options and {@code extraArgs}. Sentinel needs this: it
     * refuses to run without a config file given that way, and rewrites it to record what it learnt (its id, the
     * other sentinels, the current master). The file is written once and then left to redis-server, so a
     * {@link #restart()} reads what the server last wrote.
     *
     * @throws IllegalArgumentException if a reserved option is given
     * @throws IllegalStateException    if the server does not come up (see {@link #start(RedisBinary, List)})
     */
    static RedisServer startWithConfigFile(RedisBinary binary, String configText, List<String> extraArgs) {
        return startWithConfigFile(binary, configText, null, extraArgs);
    }

    /** As {@link #startWithConfigFile(RedisBinary, String, List)}, speaking TLS only if {@code tls} is not null. */
    static RedisServer startWithConfigFile(RedisBinary binary, String configText, TlsFiles tls,
                                           List<String> extraArgs) {
        if (tls != null) {
            requireTlsSupport(binary, extraArgs);
        }
        return start(binary, Objects.requireNonNull(configText, "configText"), tls, extraArgs);
    }

    private static RedisServer start(RedisBinary binary, String configText, TlsFiles tls, List<String> extraArgs) {
        Objects.requireNonNull(binary, "binary");
        List<String> args = List.copyOf(extraArgs);
        for (String arg : args) {
            if (RESERVED_OPTIONS.contains(arg.toLowerCase(Locale.ROOT))) {
                throw new IllegalArgumentException(arg + " is managed by RedisServer and cannot be overridden");
            }
        }
        Path dir;
        try {
            dir = Files.createTempDirectory("baton-redis-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temp directory for redis-server", e);
        }
        Path configFile = configText == null ? null : writeConfigFile(dir, configText);
        boolean clusterBus = clusterEnabled(args);
        PortInUseException lastPortFailure = null;
        for (int attempt = 1; attempt <= PORT_ATTEMPTS; attempt++) {
            RedisServer server = new RedisServer(binary, args, dir, configFile, tls, Ports.reserve(clusterBus));
            try {
                synchronized (server) {
                    server.launch();
                }
                return server;
            } catch (PortInUseException e) {
                // Another process grabbed the port between our probe and redis' bind: try a different one.
                lastPortFailure = e;
                Reaper.LIVE.remove(server);
                Ports.release(server.port);
            } catch (RuntimeException | Error e) {
                server.closeQuietly(e);
                throw e;
            }
        }
        deleteRecursively(dir);
        throw new IllegalStateException("could not start redis-server on a free port in " + PORT_ATTEMPTS
                + " attempts", lastPortFailure);
    }

    /**
     * The address the server listens on.
     *
     * @return always {@code "127.0.0.1"}
     */
    public String host() {
        return HOST;
    }

    /**
     * The port, fixed for the lifetime of this object (also across {@link #restart()}).
     *
     * @return the TCP port
     */
    public int port() {
        return port;
    }

    /**
     * The URI a Redis client connects with.
     *
     * @return {@code redis://127.0.0.1:<port>}, or {@code rediss://127.0.0.1:<port>} for a server started with
     *         {@link #startTls(RedisBinary, TlsFiles, List)}
     */
    public String uri() {
        return (tls == null ? "redis://" : "rediss://") + HOST + ":" + port;
    }

    /**
     * The certificates of a TLS-only server.
     *
     * @return the files given to {@link #startTls(RedisBinary, TlsFiles, List)}, or empty for a plain server
     */
    public Optional<TlsFiles> tls() {
        return Optional.ofNullable(tls);
    }

    /**
     * Starts a new server, from the same binary, that replicates this one ({@code --replicaof}), and returns once it
     * is in sync: its link to this server is up and this server lists it as an online replica, so a write made here
     * afterwards is streamed to it. First sets this server's {@code repl-diskless-sync-delay} to 0 (Redis 7 would
     * otherwise wait 5 s for more replicas before the first sync). If this server was started with
     * {@code --requirepass}, the replica authenticates to it with that password ({@code --masterauth}).
     *
     * @return the replica, in sync; close it like any server
     * @throws IllegalStateException if this server is closed or not running, or the replica does not come up or does
     *                               not sync within 60 s (it is closed then)
     */
    public RedisServer startReplica() {
        return startReplica(List.of());
    }

    /**
     * {@link #startReplica()} with further options for the replica, e.g. {@code List.of("--replica-priority", "0")}.
     *
     * @param extraArgs options of the replica and their values, as for {@link #start(List)}
     * @return the replica, in sync
     * @throws IllegalArgumentException if a reserved option is given
     * @throws IllegalStateException    as {@link #startReplica()}
     */
    public RedisServer startReplica(List<String> extraArgs) {
        ensureOpen();
        if (!isRunning() || paused) {
            throw new IllegalStateException("cannot start a replica of " + this + ": it is not running");
        }
        command("CONFIG", "SET", "repl-diskless-sync-delay", "0");
        List<String> args = new ArrayList<>(List.of("--replicaof", HOST, Integer.toString(port)));
        if (password != null) {
            args.addAll(List.of("--masterauth", password));
        }
        args.addAll(extraArgs);
        RedisServer replica = start(binary, args);
        try {
            // Through command(), which authenticates where a password is set (Replies does not).
            Await.until("the replica " + replica + " to sync with " + this, REPLICA_SYNC_TIMEOUT, () -> {
                if (!replica.command("INFO", "replication").contains("master_link_status:up")) {
                    return "its link to the master is not up yet";
                }
                String seen = command("INFO", "replication").lines()
                        .filter(l -> l.contains("port=" + replica.port() + ",")).findFirst().orElse("not listed");
                return seen.contains("state=online") ? null : "the master lists it as " + seen;
            }, () -> "; replica log:\n" + replica.logTail(0));
        } catch (RuntimeException | Error e) {
            replica.closeQuietly(e);
            throw e;
        }
        return replica;
    }

    /**
     * Pid of the current (or, if it has exited, the most recent) process; changes on {@link #restart()}.
     *
     * @return the process id
     */
    public long pid() {
        return process.pid();
    }

    /**
     * The binary this server runs.
     *
     * @return the binary
     */
    public RedisBinary binary() {
        return binary;
    }

    /**
     * Whether the process is alive; a {@linkplain #pause() paused} process counts as running.
     *
     * @return true while the process exists
     */
    public boolean isRunning() {
        Process p = process;
        return p != null && p.isAlive();
    }

    /**
     * Sends one command over a fresh socket (2 s connect and read timeout) and renders the reply as text: simple and
     * bulk strings as is, integers in decimal, nil as {@code null}, arrays as their elements joined with {@code "\n"}
     * (nested arrays flattened, nil elements as empty lines). On a server started with {@code --requirepass}, the
     * socket is first authenticated as the default user, so the command runs with that user's permissions.
     *
     * @param args the command and its arguments, e.g. {@code "SET", "k", "v"}
     * @return the reply as text, or null for a nil reply
     * @throws IllegalArgumentException if no argument is given
     * @throws IllegalStateException if the reply (or an element of it) is a Redis error, or authentication is
     *                               refused; the message is Redis' own
     * @throws UncheckedIOException  if the server cannot be reached or does not reply in time (e.g. it is killed or
     *                               paused); the cause is the original {@link IOException}
     */
    public String command(String... args) {
        if (args.length == 0) {
            throw new IllegalArgumentException("no command given");
        }
        try {
            return Resp.render(call(COMMAND_TIMEOUT_MILLIS, args));
        } catch (IOException e) {
            throw new UncheckedIOException(args[0] + " to " + HOST + ":" + port + " failed: " + e, e);
        }
    }

    /**
     * Stops the server gracefully with {@code SHUTDOWN NOSAVE}, falling back to SIGTERM and finally SIGKILL, and
     * waits for the process to exit. A paused server is resumed first. Does nothing if it is not running.
     *
     * @throws IllegalStateException if the process does not exit even after SIGKILL
     */
    public synchronized void stop() {
        Process p = process;
        if (p == null || !p.isAlive()) {
            paused = false;
            return;
        }
        if (paused) {
            resume(); // a stopped process cannot act on SHUTDOWN, and SIGTERM would stay pending
        }
        try {
            call(COMMAND_TIMEOUT_MILLIS, "SHUTDOWN", "NOSAVE");
        } catch (IOException | IllegalStateException e) {
            // The normal outcome is EOF (the server exits without replying); anything else falls through to SIGTERM.
        }
        if (!awaitExit(p, GRACEFUL_EXIT_TIMEOUT)) {
            p.destroy(); // SIGTERM
            if (!awaitExit(p, GRACEFUL_EXIT_TIMEOUT)) {
                p.destroyForcibly();
                awaitExitOrFail(p);
            }
        }
        paused = false;
    }

    /**
     * Kills the process with SIGKILL (also if paused) and waits for it to exit. Does nothing if it is not running.
     *
     * @throws IllegalStateException if the process does not exit within 10 s
     */
    public synchronized void kill() {
        Process p = process;
        if (p != null && p.isAlive()) {
            p.destroyForcibly(); // SIGKILL on POSIX; terminates stopped processes too
            awaitExitOrFail(p);
        }
        paused = false;
    }

    /**
     * Freezes the process with SIGSTOP: connections are still accepted by the kernel but never answered, which is how
     * a GC pause or a partitioned master looks to a client. Returns once the process is stopped. No-op if already
     * paused.
     *
     * @throws IllegalStateException if closed or not running, or the signal cannot be delivered
     */
    public synchronized void pause() {
        ensureOpen();
        if (paused) {
            return;
        }
        if (!isRunning()) {
            throw new IllegalStateException("cannot pause " + this + ": not running");
        }
        signal("STOP");
        paused = true;
        awaitStopped(true);
    }

    /**
     * Continues a paused process with SIGCONT. No-op if not paused.
     *
     * @throws IllegalStateException if closed, or the signal cannot be delivered
     */
    public synchronized void resume() {
        ensureOpen();
        if (!paused) {
            return;
        }
        if (isRunning()) {
            signal("CONT");
            awaitStopped(false);
        }
        paused = false;
    }

    /**
     * One command on a socket of its own, as the kit talks to this server: over TLS for a TLS server, authenticated
     * with the {@code --requirepass} password if there is one.
     *
     * @return the parsed reply, as {@link Resp#call} returns it
     */
    Object call(int timeoutMillis, String... args) throws IOException {
        return Resp.call(tls == null ? null : tls.socketFactory(), HOST, port, timeoutMillis, password, args);
    }

    /**
     * Whether the process is paused: {@link #pause()} was called without a subsequent resume, stop, kill or restart.
     * A paused server answers nothing until resumed, so tests that ask several servers skip it.
     *
     * @return true while paused
     */
    public boolean isPaused() {
        return paused;
    }

    /** Whether {@link #close()} was called. */
    boolean isClosed() {
        return closed;
    }

    /** The file that receives the server's log (and its stdout/stderr); it survives restarts, not close(). */
    Path logFile() {
        return logFile;
    }

    /**
     * Starts the server again on the same port with the same arguments, stopping it first if it is still running
     * (a paused server is resumed first). Returns once it answers {@code PING}. The data set is empty afterwards.
     * If the port is briefly unavailable, binding is retried up to 5 times with a growing back-off.
     *
     * @throws IllegalStateException if closed, or the server does not come up
     */
    public synchronized void restart() {
        ensureOpen();
        if (isRunning()) {
            stop();
        }
        PortInUseException last = null;
        for (int attempt = 1; attempt <= RESTART_ATTEMPTS; attempt++) {
            try {
                launch();
                return;
            } catch (PortInUseException e) {
                last = e;
                park(RESTART_BACKOFF.multipliedBy(attempt));
            }
        }
        throw new IllegalStateException("port " + port + " stayed unavailable for restarting " + this, last);
    }

    /**
     * Resumes the process if paused, kills it, and deletes the temp directory. Idempotent; never throws for a server
     * that is already gone. All steps are attempted even if one fails; the first failure is then thrown.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        RuntimeException failure = null;
        try {
            Process p = process;
            if (paused && p != null && p.isAlive()) {
                signal("CONT");
            }
        } catch (RuntimeException e) {
            failure = e; // SIGKILL below works on a stopped process anyway
        }
        paused = false;
        try {
            kill();
        } catch (RuntimeException e) {
            failure = addFailure(failure, e);
        }
        Reaper.LIVE.remove(this);
        Ports.release(port);
        try {
            deleteRecursively(dir);
        } catch (RuntimeException e) {
            failure = addFailure(failure, e);
        }
        if (failure != null) {
            throw failure;
        }
    }

    /**
     * Closes every server, even if closing one fails; the first failure is then thrown with the others suppressed.
     * Shared by the kit's groups of servers.
     */
    static void closeAll(Iterable<RedisServer> servers) {
        RuntimeException failure = null;
        for (RedisServer server : servers) {
            try {
                server.close();
            } catch (RuntimeException e) {
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public String toString() {
        Process p = process;
        return "RedisServer[" + HOST + ":" + port + (p == null ? "" : " pid=" + p.pid())
                + (closed ? " closed" : isRunning() ? (paused ? " paused" : " running") : " stopped")
                + " " + binary.path() + "]";
    }

    // ---------------------------------------------------------------------------------------------------------------

    private void closeQuietly(Throwable cause) {
        try {
            close();
        } catch (RuntimeException e) {
            cause.addSuppressed(e);
        }
    }

    private static RuntimeException addFailure(RuntimeException first, RuntimeException next) {
        if (first == null) {
            return next;
        }
        first.addSuppressed(next);
        return first;
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException(this + " is closed");
        }
    }

    private List<String> commandLine() {
        List<String> cmd = new ArrayList<>();
        cmd.add(binary.path().toString());
        if (configFile != null) {
            cmd.add(configFile.toString()); // redis-server only takes a config file as its very first argument
        }
        cmd.addAll(List.of(
                "--port", tls == null ? Integer.toString(port) : "0", // 0: no plain port at all
                "--bind", HOST,
                "--save", "", // empty argument: no RDB snapshots
                "--appendonly", "no",
                "--dir", dir.toString(),
                "--daemonize", "no", // we must own the process to signal and reap it
                "--protected-mode", "no",
                "--logfile", logFile.toString()));
        if (tls != null) {
            cmd.addAll(List.of(
                    "--tls-port", Integer.toString(port),
                    "--tls-cert-file", tls.serverCertificate().toString(),
                    "--tls-key-file", tls.serverKey().toString(),
                    "--tls-ca-cert-file", tls.caCertificate().toString(),
                    "--tls-auth-clients", "no"));
        }
        cmd.addAll(extraArgs);
        return cmd;
    }

    /** Starts the process on {@link #port} and waits until it is ready. Caller holds the lock. */
    private void launch() {
        long logOffset = fileSize(logFile);
        ProcessBuilder builder = new ProcessBuilder(commandLine())
                .directory(dir.toFile())
                .redirectErrorStream(true)
                // Startup errors (bad options) are printed before --logfile takes effect; keep them in the same file.
                .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        Reaper.LIVE.add(this); // before start(): the hook must cover a JVM exit during startup
        Process p;
        try {
            p = builder.start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run " + binary.path(), e);
        }
        process = p;
        paused = false;
        try {
            p.getOutputStream().close(); // redis never reads stdin
        } catch (IOException ignored) {
            // nothing to release
        }
        awaitReady(p, logOffset);
    }

    private void awaitReady(Process p, long logOffset) {
        long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
        while (true) {
            if (!p.isAlive()) {
                String tail = logTail(logOffset);
                if (tail.contains("Address already in use")) {
                    throw new PortInUseException(port, tail);
                }
                throw new IllegalStateException("redis-server exited with code " + p.exitValue()
                        + " while starting on port " + port + "; " + binary + "; log " + logFile + ":\n" + tail);
            }
            if (answersAsOurs(p)) {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                p.destroyForcibly();
                awaitExit(p, EXIT_TIMEOUT);
                throw new IllegalStateException("redis-server did not answer PING on port " + port + " within "
                        + STARTUP_TIMEOUT.toSeconds() + " s; " + binary + "; log " + logFile + ":\n"
                        + logTail(logOffset));
            }
            park(POLL_INTERVAL);
        }
    }

    /** PONG alone is not enough: after a port race it could come from someone else's server. */
    private boolean answersAsOurs(Process p) {
        try {
            if (!"PONG".equals(call(PROBE_TIMEOUT_MILLIS, "PING"))) {
                return false;
            }
            Object info = call(PROBE_TIMEOUT_MILLIS, "INFO", "server");
            long reported = parseProcessId(String.valueOf(info));
            if (reported == p.pid()) {
                return true;
            }
            if (p.descendants().anyMatch(h -> h.pid() == reported)) {
                p.destroyForcibly();
                throw new IllegalStateException(binary.path() + " started redis-server as a child process (pid "
                        + reported + ") instead of exec'ing it; the kit must own the redis-server process itself");
            }
            return false; // another server on our port; ours will exit with "Address already in use"
        } catch (Resp.ErrorReply e) {
            // A server that refuses the kit (default user disabled or with another password, or not allowed PING or
            // INFO) is up, but cannot prove its identity to the kit.
            String refusal = e.getMessage();
            return (refusal.startsWith("NOAUTH") || refusal.startsWith("WRONGPASS") || refusal.startsWith("NOPERM"))
                    && p.isAlive();
        } catch (IOException e) {
            return false;
        }
    }

    /**
     * Refuses, before anything is started, a binary that cannot serve TLS, so that the test says why instead of
     * timing out on a server that accepts connections it cannot handshake. A TLS module loaded with
     * {@code --loadmodule} (Redis 7.2+ built with {@code BUILD_TLS=module}) is given the benefit of the doubt.
     */
    private static void requireTlsSupport(RedisBinary binary, List<String> extraArgs) {
        boolean loadsModule = extraArgs.stream().anyMatch(a -> a.equalsIgnoreCase("--loadmodule"));
        if (!loadsModule && !binary.supportsTls()) {
            throw new IllegalStateException(binary + " (" + binary.product() + " " + binary.version() + ") is built"
                    + " without TLS support, so it cannot run a TLS server: install a redis-server built with"
                    + " BUILD_TLS=yes (e.g. Debian's or Ubuntu's package) on PATH, or set " + RedisBinary.PROPERTY
                    + " or " + RedisBinary.ENV_VAR + " to one");
        }
    }

    /**
     * The value of the last {@code --requirepass} option, as redis-server applies options in order; null if there is
     * none or it is empty (an empty {@code requirepass} means no password).
     */
    private static String requiredPassword(List<String> args) {
        String found = null;
        for (int i = 0; i + 1 < args.size(); i++) {
            if (args.get(i).equalsIgnoreCase("--requirepass")) {
                found = args.get(i + 1);
            }
        }
        return found == null || found.isEmpty() ? null : found;
    }

    /** Whether the options enable cluster mode, which makes redis-server also listen on port + 10000. */
    private static boolean clusterEnabled(List<String> args) {
        boolean enabled = false;
        for (int i = 0; i + 1 < args.size(); i++) {
            if (args.get(i).equalsIgnoreCase("--cluster-enabled")) {
                enabled = args.get(i + 1).equalsIgnoreCase("yes"); // the last occurrence wins, as in redis-server
            }
        }
        return enabled;
    }

    private static Path writeConfigFile(Path dir, String configText) {
        Path file = dir.resolve(CONFIG_FILE_NAME);
        try {
            Files.writeString(file, configText, StandardCharsets.UTF_8);
            return file;
        } catch (IOException e) {
            deleteRecursively(dir);
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    private static long parseProcessId(String info) {
        for (String line : info.split("\r?\n")) {
            if (line.startsWith("process_id:")) {
                return Long.parseLong(line.substring("process_id:".length()).trim());
            }
        }
        return -1;
    }

    private String logTail(long fromOffset) {
        try (SeekableByteChannel ch = Files.newByteChannel(logFile)) {
            long start = Math.max(fromOffset, ch.size() - LOG_TAIL_BYTES);
            ch.position(Math.min(start, ch.size()));
            ByteBuffer buf = ByteBuffer.allocate((int) (ch.size() - ch.position()));
            while (buf.hasRemaining() && ch.read(buf) > 0) {
                // read until the snapshot size is reached
            }
            return new String(buf.array(), 0, buf.position(), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            return "(log unavailable: " + e + ")";
        }
    }

    private static long fileSize(Path file) {
        try {
            return Files.exists(file) ? Files.size(file) : 0;
        } catch (IOException e) {
            return 0;
        }
    }

    private void signal(String name) {
        long pid = process.pid();
        Process kill;
        try {
            kill = new ProcessBuilder("kill", "-" + name, Long.toString(pid))
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot run kill -" + name + " " + pid, e);
        }
        boolean exited = awaitExit(kill, SIGNAL_TIMEOUT);
        if (!exited || kill.exitValue() != 0) {
            kill.destroyForcibly();
            throw new IllegalStateException("kill -" + name + " " + pid + " failed"
                    + (exited ? " with exit code " + kill.exitValue() : ": timed out"));
        }
    }

    /**
     * kill(1) returns once the signal is queued; on Linux, wait until /proc shows the state actually changed so that
     * callers observe a frozen (or live) server right after pause()/resume() return. Elsewhere this is best effort.
     */
    private void awaitStopped(boolean stopped) {
        Path stat = Paths.get("/proc", Long.toString(process.pid()), "stat");
        long deadline = System.nanoTime() + SIGNAL_TIMEOUT.toNanos();
        while (Files.isReadable(stat)) {
            String content;
            try {
                content = Files.readString(stat);
            } catch (IOException e) {
                return; // the process vanished
            }
            int end = content.lastIndexOf(')'); // the command name in parentheses may itself contain spaces
            char state = end >= 0 && end + 2 < content.length() ? content.charAt(end + 2) : '?';
            if ((state == 'T' || state == 't') == stopped || state == 'Z' || state == 'X') {
                return;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("process " + process.pid() + " did not become "
                        + (stopped ? "stopped" : "running") + " within " + SIGNAL_TIMEOUT.toSeconds() + " s");
            }
            park(Duration.ofMillis(1));
        }
    }

    private static boolean awaitExit(Process p, Duration timeout) {
        try {
            return p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !p.isAlive();
        }
    }

    private void awaitExitOrFail(Process p) {
        if (!awaitExit(p, EXIT_TIMEOUT)) {
            throw new IllegalStateException("redis-server pid " + p.pid() + " did not exit within "
                    + EXIT_TIMEOUT.toSeconds() + " s");
        }
    }

    private static void park(Duration d) {
        LockSupport.parkNanos(d.toNanos());
    }

    private static void deleteRecursively(Path root) {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path p : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + root, e);
        }
    }

    /** The chosen port was taken by someone else before redis-server could bind it. */
    private static final class PortInUseException extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        PortInUseException(int port, String logTail) {
            super("port " + port + " is already in use:\n" + logTail);
        }
    }

    /** Kills servers that were never closed when the JVM exits (normally or via an uncaught failure). */
    private static final class Reaper {
        static final Set<RedisServer> LIVE = ConcurrentHashMap.newKeySet();

        static {
            Runtime.getRuntime().addShutdownHook(new Thread(Reaper::reapAll, "baton-redis-reaper"));
        }

        private static void reapAll() {
            // No locks: a test thread may hold a server's monitor while the JVM is exiting.
            for (RedisServer server : LIVE) {
                Process p = server.process;
                if (p != null) {
                    p.destroyForcibly();
                }
            }
            for (RedisServer server : LIVE) {
                Process p = server.process;
                if (p != null) {
                    awaitExit(p, Duration.ofSeconds(1));
                }
                try {
                    deleteRecursively(server.dir);
                } catch (RuntimeException ignored) {
                    // best effort during shutdown
                }
            }
        }
    }
}
