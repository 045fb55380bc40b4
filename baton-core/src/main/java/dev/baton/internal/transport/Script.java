package dev.baton.internal.transport;

import io.lettuce.core.ScriptOutputType;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * One Lua script (one per operation), in {@code dev/baton/lua/<name>.lua}, with the shared helpers it uses
 * ({@code dev/baton/lua/lib/<helper>.lua}) prepended, so that an invariant (who owns a hold, how tokens are minted)
 * is written once and every script stays one self-contained {@code EVAL} body (Redis 6.2 has no Functions). Loaded
 * from the class path once; {@link RedisGateway} runs them by SHA-1 and falls back to sending the body when Redis
 * answers NOSCRIPT.
 *
 * <p>Only the helpers a script names are prepended: Redis creates a Lua closure for each one on every call, which a
 * script on the hot path should not pay for helpers it never calls.
 */
public final class Script {
    private final String file;
    private final String body;
    private final String sha;
    private final boolean inOrder;
    /** How Redis's reply is read: the one Lettuce type of a script call, kept inside the transport. */
    private final ScriptOutputType output;

    private Script(String name, ScriptOutputType output, String... helpers) {
        this.file = "/dev/baton/lua/" + name + ".lua";
        StringBuilder text = new StringBuilder();
        for (String helper : helpers) {
            text.append(read("/dev/baton/lua/lib/" + helper + ".lua"));
        }
        this.body = text.append(read(file)).toString();
        this.sha = sha1(body);
        this.inOrder = false;
        this.output = output;
    }

    private Script(Script script) {
        this.file = script.file;
        this.body = script.body;
        this.sha = script.sha;
        this.inOrder = true;
        this.output = script.output;
    }

    /**
     * This script, sent whole ({@code EVAL} with its body) every time rather than by SHA: for a script whose place
     * among the connection's commands matters. Redis runs one connection's commands in the order sent, but the body
     * that follows a NOSCRIPT answer is sent only once that answer is back, behind whatever was sent meanwhile (an
     * abandon must run before any later try of its owner: docs/lock-protocol.md, "Acquisitions whose reply was
     * lost"). Only for scripts off the hot path: it sends the whole body each time.
     */
    public Script inOrder() {
        return new Script(this);
    }

    /** Whether {@link RedisGateway} sends this script whole every time ({@link #inOrder()}). */
    public boolean isInOrder() {
        return inOrder;
    }

    /** The script as sent to Redis: its helpers, then its own text. */
    public String body() {
        return body;
    }

    public String sha() {
        return sha;
    }

    public String file() {
        return file;
    }

    /** How the transport reads this script's reply. */
    ScriptOutputType output() {
        return output;
    }

    /**
     * A script whose reply is one integer (a {@code Long} in Java): loads {@code dev/baton/lua/<name>.lua} with the
     * named helpers of {@code dev/baton/lua/lib} in front of it; fails at once (class initialisation of the caller)
     * when a file is missing.
     */
    public static Script integer(String name, String... helpers) {
        return new Script(name, ScriptOutputType.INTEGER, helpers);
    }

    /**
     * A script whose reply is an array (a {@code List} of {@code Long}, {@code String} or nested lists in Java); see
     * {@link #integer}.
     */
    public static Script list(String name, String... helpers) {
        return new Script(name, ScriptOutputType.MULTI, helpers);
    }

    private static String read(String file) {
        try (InputStream in = Script.class.getResourceAsStream(file)) {
            if (in == null) {
                throw new IllegalStateException("script resource missing from the class path: " + file);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read script " + file, e);
        }
    }

    private static String sha1(String body) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(body.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is required of every JVM", e);
        }
    }
}
