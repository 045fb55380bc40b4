package dev.baton.internal.transport;

/**
 * The key prefix of one Baton object: {@code <namespace>:<kind>:{<name>}}. Every key of the object starts with it,
 * so they all share the hash tag and sit in one Cluster hash slot, where one script can touch them all.
 *
 * <p>Braces and '%' inside the name are percent-escaped, so a name can never end the hash tag early (an empty or
 * partial tag would scatter the keys over slots), and distinct names keep distinct keys.
 */
public final class HashTag {
    private HashTag() {
    }

    public static String of(String namespace, String kind, String name) {
        return namespace + ":" + kind + ":{" + escape(name) + "}";
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
