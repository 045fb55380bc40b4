package dev.baton.test;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;

/**
 * Just enough RESP2 to send one command over a fresh socket and read one reply, so the kit needs no Redis client
 * library (baton-core's tests must be free to choose theirs). Not a general-purpose client: no pipelining, no RESP3.
 */
final class Resp {

    private Resp() {
    }

    /** An error reply; thrown so callers cannot mistake it for data. */
    static final class ErrorReply extends IllegalStateException {
        private static final long serialVersionUID = 1L;

        ErrorReply(String message) {
            super(message);
        }
    }

    /**
     * Connects, authenticates if a password is given, sends {@code args} as one command, reads one reply.
     *
     * @param password the default user's password, sent as {@code AUTH <password>} on the same connection before
     *                 the command; null for none
     * @return a {@code String} (simple or bulk string), {@code Long} (integer), {@code null} (nil) or a
     *         {@code List<Object>} of these (array)
     * @throws ErrorReply   if the reply, or any element of it, is an error; or if {@code AUTH} is refused (the
     *                      command is then not sent)
     * @throws IOException  if connecting, writing or reading fails or exceeds {@code timeoutMillis}; an
     *                      {@link EOFException} means the server closed the connection without replying
     */
    static Object call(String host, int port, int timeoutMillis, String password, String... args)
            throws IOException {
        return call(null, host, port, timeoutMillis, password, args);
    }

    /**
     * As {@link #call(String, int, int, String, String...)}, over TLS if {@code tls} is not null: the handshake is
     * bounded by {@code timeoutMillis} too, and a refused one is an {@link IOException} like any failed connection.
     */
    static Object call(SSLSocketFactory tls, String host, int port, int timeoutMillis, String password,
                       String... args) throws IOException {
        if (args.length == 0) {
            throw new IllegalArgumentException("no command given");
        }
        try (Socket plain = new Socket()) {
            plain.connect(new InetSocketAddress(host, port), timeoutMillis);
            plain.setSoTimeout(timeoutMillis);
            plain.setTcpNoDelay(true);
            try (Socket socket = secure(plain, host, port, tls)) {
                return exchange(socket, password, args);
            }
        }
    }

    private static Object exchange(Socket socket, String password, String... args) throws IOException {
        OutputStream out = new BufferedOutputStream(socket.getOutputStream());
        InputStream in = new BufferedInputStream(socket.getInputStream());
        if (password != null) {
            // Not pipelined with the command: a refused AUTH must not let the command run as someone else.
            out.write(encode("AUTH", password));
            out.flush();
            read(in);
        }
        out.write(encode(args));
        out.flush();
        return read(in);
    }

    /**
     * The socket to talk through: the connected {@code plain} itself, or a TLS layer over it, handshaken (bounded by
     * the plain socket's read timeout). Closing the layer closes both.
     */
    private static Socket secure(Socket plain, String host, int port, SSLSocketFactory tls) throws IOException {
        if (tls == null) {
            return plain;
        }
        SSLSocket secure = (SSLSocket) tls.createSocket(plain, host, port, true);
        secure.startHandshake();
        return secure;
    }

    static byte[] encode(String... args) {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        writeAscii(buf, "*" + args.length + "\r\n");
        for (String arg : args) {
            byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            writeAscii(buf, "$" + bytes.length + "\r\n");
            buf.writeBytes(bytes);
            writeAscii(buf, "\r\n");
        }
        return buf.toByteArray();
    }

    private static void writeAscii(ByteArrayOutputStream buf, String s) {
        buf.writeBytes(s.getBytes(StandardCharsets.US_ASCII));
    }

    static Object read(InputStream in) throws IOException {
        int type = in.read();
        if (type < 0) {
            throw new EOFException("connection closed by server without a reply");
        }
        String line = readLine(in);
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new ErrorReply(line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int len = Integer.parseInt(line);
                if (len < 0) {
                    return null;
                }
                byte[] data = in.readNBytes(len);
                if (data.length != len || in.read() != '\r' || in.read() != '\n') {
                    throw new EOFException("truncated bulk string");
                }
                return new String(data, StandardCharsets.UTF_8);
            }
            case '*': {
                int count = Integer.parseInt(line);
                if (count < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(count);
                for (int i = 0; i < count; i++) {
                    items.add(read(in));
                }
                return items;
            }
            default:
                throw new IOException("unexpected RESP type byte '" + (char) type + "'");
        }
    }

    private static String readLine(InputStream in) throws IOException {
        ByteArrayOutputStream line = new ByteArrayOutputStream();
        while (true) {
            int b = in.read();
            if (b < 0) {
                throw new EOFException("truncated reply");
            }
            if (b == '\r') {
                if (in.read() != '\n') {
                    throw new IOException("malformed reply: CR without LF");
                }
                return line.toString(StandardCharsets.UTF_8);
            }
            line.write(b);
        }
    }

    /**
     * Renders a parsed reply as text: strings as is, integers in decimal, nil as {@code null}; arrays become their
     * elements one per line, nested arrays flattened, nil elements as empty lines.
     */
    static String render(Object reply) {
        if (reply == null) {
            return null;
        }
        if (reply instanceof List<?> list) {
            List<String> lines = new ArrayList<>();
            flatten(list, lines);
            return String.join("\n", lines);
        }
        return reply.toString();
    }

    private static void flatten(List<?> list, List<String> lines) {
        for (Object item : list) {
            if (item instanceof List<?> nested) {
                flatten(nested, lines);
            } else {
                lines.add(item == null ? "" : item.toString());
            }
        }
    }
}
