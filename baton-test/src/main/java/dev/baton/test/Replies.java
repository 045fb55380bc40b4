package dev.baton.test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Commands whose replies the topologies need as structure rather than as {@link RedisServer#command} text: nested
 * arrays (e.g. {@code SENTINEL REPLICAS}), field/value arrays, and {@code INFO} sections.
 */
final class Replies {

    private static final int TIMEOUT_MILLIS = 2_000;

    private Replies() {
    }

    /**
     * Sends one command to {@code server} as the kit talks to it: over TLS for a TLS server, authenticated if it was
     * started with {@code --requirepass}.
     *
     * @return the parsed reply, as {@link Resp#call} returns it
     * @throws IllegalStateException if Redis replies with an error (the message is Redis' own)
     * @throws UncheckedIOException  if the server cannot be reached or does not reply within 2 s
     */
    static Object call(RedisServer server, String... args) {
        return call(server, TIMEOUT_MILLIS, args);
    }

    /** As {@link #call(RedisServer, String...)}, with a read timeout for commands that may take long (MIGRATE). */
    static Object call(RedisServer server, int timeoutMillis, String... args) {
        try {
            return server.call(timeoutMillis, args);
        } catch (IOException e) {
            throw new UncheckedIOException(args[0] + " to " + server.host() + ":" + server.port() + " failed: " + e, e);
        }
    }

    /** A reply that is an array, e.g. of node entries. */
    static List<?> array(Object reply) {
        if (reply instanceof List<?> list) {
            return list;
        }
        throw new IllegalStateException("expected an array reply, got " + reply);
    }

    /** A flat array of alternating field names and values, e.g. one entry of {@code SENTINEL REPLICAS}. */
    static Map<String, String> fields(Object reply) {
        List<?> list = array(reply);
        Map<String, String> fields = new HashMap<>();
        for (int i = 0; i + 1 < list.size(); i += 2) {
            fields.put(String.valueOf(list.get(i)), String.valueOf(list.get(i + 1)));
        }
        return fields;
    }

    /** The {@code name:value} lines of an {@code INFO} section (or of {@code CLUSTER INFO}). */
    static Map<String, String> info(RedisServer server, String... command) {
        Map<String, String> fields = new HashMap<>();
        for (String line : String.valueOf(call(server, command)).split("\r?\n")) {
            int colon = line.indexOf(':');
            if (colon > 0 && !line.startsWith("#")) {
                fields.put(line.substring(0, colon), line.substring(colon + 1).strip());
            }
        }
        return fields;
    }
}
