package dev.baton.internal.primitives;

import dev.baton.BatonAdmin;
import java.util.Optional;

/**
 * What a key of Baton's says about the object it belongs to (docs/key-layout.md): {@code <ns>:<kind>:{<name>}}
 * followed by a suffix of the kind's, the name escaped ({@code %} as {@code %25}, braces as {@code %7B} and
 * {@code %7D}). Keys of other applications, and Baton's own keys that belong to no object (a Redlock master's
 * admission mark), are no object.
 *
 * @param kind   the object's kind
 * @param name   the name as the application gave it
 * @param active whether this key is live state (a hold, a queue, a count) rather than what stays while the object is
 *               free (a fencing counter, a semaphore's total)
 */
record ObjectKey(BatonAdmin.Kind kind, String name, boolean active) {

    /** The object of {@code key} in {@code namespace}, empty if it is none of Baton's objects. */
    static Optional<ObjectKey> parse(String namespace, String key) {
        String prefix = namespace + ":";
        if (!key.startsWith(prefix)) {
            return Optional.empty();
        }
        int kindEnd = key.indexOf(':', prefix.length());
        if (kindEnd < 0 || kindEnd + 1 >= key.length() || key.charAt(kindEnd + 1) != '{') {
            return Optional.empty();
        }
        Optional<BatonAdmin.Kind> kind = BatonAdmin.Kind.ofKeyword(key.substring(prefix.length(), kindEnd));
        int close = key.indexOf('}', kindEnd + 2);
        if (kind.isEmpty() || close < 0) {
            return Optional.empty();
        }
        String name = unescape(key.substring(kindEnd + 2, close));
        String suffix = key.substring(close + 1);
        return Optional.of(new ObjectKey(kind.get(), name, active(kind.get(), suffix)));
    }

    private static boolean active(BatonAdmin.Kind kind, String suffix) {
        if (suffix.equals(":token")) {
            return false;
        }
        // A semaphore's hash keeps only its total once nobody holds or waits; its holders and queue are the state.
        return kind != BatonAdmin.Kind.SEMAPHORE || !suffix.isEmpty();
    }

    private static String unescape(String escaped) {
        if (escaped.indexOf('%') < 0) {
            return escaped;
        }
        return escaped.replace("%7B", "{").replace("%7D", "}").replace("%25", "%");
    }
}
