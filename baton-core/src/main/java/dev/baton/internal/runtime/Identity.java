package dev.baton.internal.runtime;


import java.net.InetAddress;
import java.security.SecureRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Who a Baton instance is, as Redis sees it: a random instance id, the owner ids it derives from it, and the holder
 * description operators read in {@code inspect}. Owner ids are opaque to the engine and the scripts.
 */
public final class Identity {
    private static final String ID_ALPHABET = "abcdefghijkmnpqrstuvwxyz23456789";

    private final String instanceId;
    private final String holderPrefix;
    private final AtomicLong leaseSequence = new AtomicLong();
    /**
     * The owner id and holder description of each thread that used this instance, built once per thread (the
     * holder again after a rename): every acquisition and release asks for them, and building them anew each time
     * cost two string concatenations and their hashing per call.
     */
    private final ThreadLocal<CallingThread> callingThreads = new ThreadLocal<>();

    private record CallingThread(String owner, String name, String holder) {
    }

    public Identity() {
        this.instanceId = randomId();
        this.holderPrefix = instanceId + " " + ProcessHandle.current().pid() + " " + hostName() + " ";
    }

    public String instanceId() {
        return instanceId;
    }

    /** Owner of the thread-owned Lock methods: (this instance, the calling thread). */
    public String threadOwner() {
        return callingThread().owner();
    }

    /** A fresh owner for one Lease. */
    public String newLeaseOwner() {
        return instanceId + ":L" + leaseSequence.incrementAndGet();
    }

    public static boolean isLeaseOwner(String owner) {
        return owner.contains(":L");
    }

    /** "instance pid host thread-name" for the calling thread; parsed back by {@link #describedBy}. */
    public String holderOfCallingThread() {
        return callingThread().holder();
    }

    /**
     * A holder as {@link #holderOfCallingThread()} described it: the one reader of that format, for every inspect
     * script's reply.
     */
    public record Described(String instance, long pid, String host, String thread) {
    }

    /** Reads a description written by {@link #holderOfCallingThread()}; missing parts are empty (or 0). */
    public static Described describedBy(String description) {
        String[] d = description.split(" ", 4);
        return new Described(d[0], d.length > 1 ? Long.parseLong(d[1]) : 0, d.length > 2 ? d[2] : "",
                d.length > 3 ? d[3] : "");
    }

    private CallingThread callingThread() {
        Thread thread = Thread.currentThread();
        String name = thread.getName();
        CallingThread known = callingThreads.get();
        // Same String object: the thread was not renamed since (a rename to an equal name only costs a rebuild).
        if (known == null || known.name() != name) {
            known = new CallingThread(known != null ? known.owner() : instanceId + ":t" + thread.getId(), name,
                    holderPrefix + name);
            callingThreads.set(known);
        }
        return known;
    }

    private static String randomId() {
        SecureRandom random = new SecureRandom();
        char[] id = new char[12];
        for (int i = 0; i < id.length; i++) {
            id[i] = ID_ALPHABET.charAt(random.nextInt(ID_ALPHABET.length()));
        }
        return new String(id);
    }

    private static String hostName() {
        String fromEnv = System.getenv("HOSTNAME"); // avoids a DNS lookup that can take seconds on a bad resolver
        if (fromEnv != null && !fromEnv.isBlank()) {
            return fromEnv.trim().replace(' ', '_');
        }
        try {
            return InetAddress.getLocalHost().getHostName().replace(' ', '_');
        } catch (Exception e) {
            return "unknown-host";
        }
    }
}
