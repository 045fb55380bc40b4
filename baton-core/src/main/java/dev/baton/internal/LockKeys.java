package dev.baton.internal;

/**
 * Where one lock lives in Redis (see docs/key-layout.md). Both keys share the hash tag {@code {<name>}}, so a lock
 * and its fencing counter always sit in one Cluster hash slot and one script can touch both.
 *
 * <p>Braces and '%' inside the name are percent-escaped in keys, so a name can never end the hash tag early (an
 * empty or partial tag would scatter the keys over slots), and distinct names keep distinct keys.
 *
 * @param name    the lock name as the user gave it
 * @param lock    hash with owner, count, token, holder; expires with the lease
 * @param counter the last fencing token issued for the name; expires after the token retention
 * @param channel pub/sub channel on which a release is announced
 */
record LockKeys(String name, String lock, String counter, String channel) {

    static LockKeys of(String namespace, String name) {
        String tag = namespace + ":lock:{" + escape(name) + "}";
        return new LockKeys(name, tag, tag + ":token", tag + ":released");
    }

    private static String escape(String name) {
        if (name.indexOf('{') < 0 && name.indexOf('}') < 0 && name.indexOf('%') < 0) {
            return name;
        }
        StringBuilder out = new StringBuilder(name.length() + 8);
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            switch (c) {
                case '%' -> out.append("%25");
                case '{' -> out.append("%7B");
                case '}' -> out.append("%7D");
                default -> out.append(c);
            }
        }
        return out.toString();
    }
}
