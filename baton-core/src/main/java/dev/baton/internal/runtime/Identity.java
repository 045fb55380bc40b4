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

    public Identity() {
        this.instanceId = randomId();
        this.holderPrefix = instanceId + " " + ProcessHandle.current().pid() + " " + hostName() + " ";
    }

    public String instanceId() {
        return instanceId;
    }

    /** Owner of the thread-owned Lock methods: (this instance, the calling thread). */
    public String threadOwner() {
        return instanceId + ":t" + Thread.currentThread().getId();
    }

    /** A fresh owner for one Lease. */
    public String newLeaseOwner() {
        return instanceId + ":L" + leaseSequence.incrementAndGet();
    }

    public static boolean isLeaseOwner(String owner) {
        return owner.contains(":L");
    }

    /** "instance pid host thread-name" for the calling thread; parsed back by {@code LockEngine.inspect}. */
    public String holderOfCallingThread() {
        return holderPrefix + Thread.currentThread().getName();
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
