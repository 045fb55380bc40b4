package dev.baton.internal;

import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Tells whether a port speaks plain, unencrypted Redis: used only after a TLS connection failed, to tell the user
 * "this is not a TLS port" instead of a bare "could not be reached". It sends one inline {@code PING} (no
 * credentials, nothing else) and looks for a RESP reply: {@code +PONG}, or an error such as {@code -NOAUTH}.
 */
final class PlainRedisProbe {
    private static final int MAX_WAIT_MILLIS = 1_000;

    private PlainRedisProbe() {
    }

    static boolean answersPlainRedis(RedisAddress.HostAndPort target, Duration timeout) {
        int millis = (int) Math.max(1, Math.min(MAX_WAIT_MILLIS, timeout.toMillis()));
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(target.host(), target.port()), millis);
            socket.setSoTimeout(millis);
            socket.getOutputStream().write("PING\r\n".getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            InputStream in = socket.getInputStream();
            int first = in.read();
            return first == '+' || first == '-';
        } catch (IOException | RuntimeException e) {
            return false; // unreachable, or not plain Redis: nothing more to tell
        }
    }
}
