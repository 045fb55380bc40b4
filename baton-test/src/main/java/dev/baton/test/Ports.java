package dev.baton.test;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The ports of the kit's servers. A reserved port is free when handed out and stays the server's until it is
 * released (when the server is closed), also while the server is stopped or killed, so that it restarts on it:
 *
 * <ul>
 *   <li>no other server of the kit gets it, in this JVM (a set) or in any other JVM on the machine (a lock on the
 *       port's byte of one file in the temp directory, which the operating system drops when the JVM ends, however it
 *       ends), so that test JVMs run side by side never take each other's ports;</li>
 *   <li>where the operating system says which ports it hands out by itself (Linux's
 *       {@code /proc/sys/net/ipv4/ip_local_port_range}), it is outside that range, so that neither the local end of
 *       an outgoing connection nor a listener bound to port 0 (a {@link TcpProxy}, a test's web server) takes the
 *       port of a stopped server before it restarts. Elsewhere it is a port the system chose as free.</li>
 * </ul>
 *
 * <p>A cluster node also owns its bus port (port + {@value #CLUSTER_BUS_OFFSET}), which must exist and is reserved
 * with it. Without a usable lock file (not writable, or a file system without locks) the machine-wide part is left
 * out and the rest holds. Thread-safe.
 */
final class Ports {
    /** redis-server listens for cluster bus traffic on its port plus this offset (6.2 cannot configure it). */
    static final int CLUSTER_BUS_OFFSET = 10_000;
    /** Chosen ports start here, above the ports that services commonly listen on. */
    static final int LOWEST = 10_000;
    private static final int HIGHEST = 65_535;
    private static final String HOST = "127.0.0.1";
    private static final String RANGE_FILE = "/proc/sys/net/ipv4/ip_local_port_range";
    /** Far more than two port numbers and a separator take; the file is read in one call of this size. */
    private static final int RANGE_BUFFER_BYTES = 256;
    /** Fewer candidates than this, and the ports are left to the system as before. */
    private static final int MIN_CANDIDATES = 1_000;
    private static final int ATTEMPTS = 200;

    private static final Set<Integer> RESERVED = ConcurrentHashMap.newKeySet();
    /** Ports whose bus port is reserved too. */
    private static final Set<Integer> WITH_BUS = ConcurrentHashMap.newKeySet();
    private static final Map<Integer, FileLock> MACHINE_LOCKS = new ConcurrentHashMap<>();
    private static final int[] EPHEMERAL = ephemeralRange(Path.of(RANGE_FILE));
    private static final boolean PLAIN_OUTSIDE = candidates(EPHEMERAL, false) >= MIN_CANDIDATES;
    private static final boolean BUS_OUTSIDE = candidates(EPHEMERAL, true) >= MIN_CANDIDATES;
    private static volatile FileChannel lockFile = openLockFile();

    private Ports() {
    }

    /**
     * Reserves a port (and its bus port if asked).
     *
     * @param withBusPort whether the port's cluster bus port is reserved too
     * @return the port
     * @throws IllegalStateException if no port could be reserved
     */
    static int reserve(boolean withBusPort) {
        boolean outsideEphemeral = withBusPort ? BUS_OUTSIDE : PLAIN_OUTSIDE;
        for (int i = 0; i < ATTEMPTS; i++) {
            int port = outsideEphemeral ? randomOutside(EPHEMERAL, withBusPort) : systemChosenPort();
            if (port < 0 || (withBusPort && port + CLUSTER_BUS_OFFSET > HIGHEST)) {
                continue; // redis-server would exit with "port number too high"
            }
            if (take(port)) {
                if (!withBusPort) {
                    if (bindable(port)) {
                        return port;
                    }
                } else if (take(port + CLUSTER_BUS_OFFSET)) {
                    if (bindable(port) && bindable(port + CLUSTER_BUS_OFFSET)) {
                        WITH_BUS.add(port);
                        return port;
                    }
                    give(port + CLUSTER_BUS_OFFSET);
                }
                give(port);
            }
        }
        throw new IllegalStateException("no free port found in " + ATTEMPTS + " attempts"
                + (withBusPort ? " with a free cluster bus port" : ""));
    }

    /**
     * Releases a port reserved by {@link #reserve(boolean)}, with its bus port.
     *
     * @param port the port
     */
    static void release(int port) {
        // Bus port first: once the port itself is free again, it may be handed out without a bus port.
        if (WITH_BUS.remove(port)) {
            give(port + CLUSTER_BUS_OFFSET);
        }
        give(port);
    }

    /** Whether this JVM holds the port's machine-wide lock (false without a lock file). For tests. */
    static boolean lockedMachineWide(int port) {
        FileLock lock = MACHINE_LOCKS.get(port);
        return lock != null && lock.isValid();
    }

    /**
     * Whether another JVM holds the port's machine-wide lock: this JVM takes and drops it at once if it can. For
     * tests; false without a lock file.
     */
    static boolean lockedByAnotherJvm(int port) {
        FileChannel channel = lockFile;
        if (channel == null || RESERVED.contains(port)) {
            return false;
        }
        try {
            FileLock lock = channel.tryLock(port, 1, false);
            if (lock == null) {
                return true;
            }
            lock.release();
            return false;
        } catch (IOException | OverlappingFileLockException e) {
            return false;
        }
    }

    /** The range the system hands out by itself, {@code {low, high}}, or null if unknown. */
    static int[] ephemeralRange() {
        return EPHEMERAL == null ? null : EPHEMERAL.clone();
    }

    /** Reserves the port in this JVM and machine-wide; false if someone else has it. */
    private static boolean take(int port) {
        if (!RESERVED.add(port)) {
            return false;
        }
        if (lockMachineWide(port)) {
            return true;
        }
        RESERVED.remove(port);
        return false;
    }

    private static void give(int port) {
        FileLock lock = MACHINE_LOCKS.remove(port);
        if (lock != null) {
            try {
                lock.release();
            } catch (IOException ignored) {
                // the channel is gone: so is the lock
            }
        }
        RESERVED.remove(port);
    }

    /** True if this JVM now holds the port's lock, or there is no lock file to coordinate with; false if taken. */
    private static boolean lockMachineWide(int port) {
        FileChannel channel = lockFile;
        if (channel == null) {
            return true;
        }
        try {
            FileLock lock = channel.tryLock(port, 1, false);
            if (lock == null) {
                return false; // another JVM's server has it
            }
            MACHINE_LOCKS.put(port, lock);
            return true;
        } catch (OverlappingFileLockException e) {
            return false; // cannot happen while RESERVED guards the port; never hand it out twice if it does
        } catch (IOException e) {
            lockFile = null; // a file system without locks: leave the machine-wide part out from now on
            return true;
        }
    }

    private static FileChannel openLockFile() {
        String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
        Path path = Path.of(System.getProperty("java.io.tmpdir"), "baton-test-ports-" + user + ".lock");
        try {
            // Never closed: closing any channel of the file would drop every lock this JVM holds on it.
            return FileChannel.open(path, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        } catch (IOException | UnsupportedOperationException | SecurityException e) {
            return null;
        }
    }

    /** Binds {@code port} (0: any) on the loopback address and returns the bound port, or -1 if it is taken. */
    private static int bind(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getByName(HOST))) {
            return socket.getLocalPort();
        } catch (IOException e) {
            if (port != 0) {
                return -1;
            }
            throw new UncheckedIOException("cannot bind a free port on " + HOST, e);
        }
    }

    private static boolean bindable(int port) {
        return bind(port) == port;
    }

    private static int systemChosenPort() {
        return bind(0);
    }

    private static int randomOutside(int[] ephemeral, boolean withBusPort) {
        int highest = withBusPort ? HIGHEST - CLUSTER_BUS_OFFSET : HIGHEST;
        while (true) {
            int port = ThreadLocalRandom.current().nextInt(LOWEST, highest + 1);
            if (allowed(ephemeral, port, withBusPort)) {
                return port;
            }
        }
    }

    /** How many ports {@link #randomOutside} may choose from; 0 if the system's range is unknown. */
    static int candidates(int[] ephemeral, boolean withBusPort) {
        if (ephemeral == null) {
            return 0;
        }
        int count = 0;
        for (int port = LOWEST; port <= HIGHEST; port++) {
            if (allowed(ephemeral, port, withBusPort)) {
                count++;
            }
        }
        return count;
    }

    private static boolean allowed(int[] ephemeral, int port, boolean withBusPort) {
        if (!outside(ephemeral, port)) {
            return false;
        }
        return !withBusPort || (port + CLUSTER_BUS_OFFSET <= HIGHEST && outside(ephemeral, port + CLUSTER_BUS_OFFSET));
    }

    private static boolean outside(int[] ephemeral, int port) {
        return port >= LOWEST && port <= HIGHEST && (port < ephemeral[0] || port > ephemeral[1]);
    }

    /** Reads {@code low high} (tab-separated in Linux's file) from the file; null if it is missing or makes no sense. */
    static int[] ephemeralRange(Path file) {
        try (InputStream in = Files.newInputStream(file)) {
            return ephemeralRange(in);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /**
     * Reads {@code low high} from the stream with a single read: a sysctl file under {@code /proc/sys} answers only
     * a read that starts at offset 0 and gives end-of-file to any later one, so a reader that takes a first byte alone
     * and then the rest ({@code Files.readString} does, as the file's size is 0) sees "3" of "32768\t60999", and the
     * range would be unknown. Null if the text makes no sense.
     */
    static int[] ephemeralRange(InputStream in) throws IOException {
        byte[] buffer = new byte[RANGE_BUFFER_BYTES];
        int read = in.read(buffer);
        if (read <= 0) {
            return null;
        }
        String[] fields = new String(buffer, 0, read, StandardCharsets.US_ASCII).trim().split("\\s+");
        if (fields.length != 2) {
            return null;
        }
        try {
            int low = Integer.parseInt(fields[0]);
            int high = Integer.parseInt(fields[1]);
            return low > 0 && low <= high && high <= HIGHEST ? new int[] {low, high} : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
