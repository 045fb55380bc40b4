package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PortsTest {

    @Test
    void aServersPortIsOutsideTheSystemsOwnRangeAndHeldMachineWideUntilItIsClosed() throws Exception {
        int port;
        try (RedisServer server = RedisServer.start()) {
            port = server.port();
            int[] ephemeral = Ports.ephemeralRange();
            if (ephemeral != null) {
                assertThat(port).as("outside %d-%d", ephemeral[0], ephemeral[1])
                        .isGreaterThanOrEqualTo(Ports.LOWEST)
                        .satisfiesAnyOf(p -> assertThat(p).isLessThan(ephemeral[0]),
                                p -> assertThat(p).isGreaterThan(ephemeral[1]));
            }
            server.kill();
            assertThat(Ports.lockedMachineWide(port)).as("held while the server is down").isTrue();
            assertThat(probe(port)).as("seen from another JVM").isEqualTo("taken");
            server.restart();
            assertThat(server.port()).isEqualTo(port);
        }
        assertThat(Ports.lockedMachineWide(port)).as("released with the server").isFalse();
        assertThat(probe(port)).isEqualTo("free");
    }

    @Test
    void aClusterNodesBusPortIsHeldWithIt() throws Exception {
        try (RedisServer node = RedisServer.start(List.of("--cluster-enabled", "yes"))) {
            int bus = node.port() + Ports.CLUSTER_BUS_OFFSET;
            assertThat(Ports.lockedMachineWide(bus)).isTrue();
            int[] ephemeral = Ports.ephemeralRange();
            if (ephemeral != null) {
                assertThat(bus).satisfiesAnyOf(p -> assertThat(p).isLessThan(ephemeral[0]),
                        p -> assertThat(p).isGreaterThan(ephemeral[1]));
            }
        }
    }

    @Test
    void readsTheSystemsRangeAndIgnoresWhatMakesNoSense(@TempDir Path dir) throws Exception {
        assertThat(Ports.ephemeralRange(write(dir, "32768\t60999\n"))).containsExactly(32768, 60999);
        assertThat(Ports.ephemeralRange(write(dir, "60999 32768"))).isNull();
        assertThat(Ports.ephemeralRange(write(dir, "none"))).isNull();
        assertThat(Ports.ephemeralRange(dir.resolve("missing"))).isNull();
        assertThat(Ports.candidates(new int[] {32768, 60999}, false)).isEqualTo((32768 - 10_000) + (65_535 - 60_999));
        assertThat(Ports.candidates(new int[] {32768, 60999}, true)).isEqualTo(22_767 - 10_000 + 1);
        assertThat(Ports.candidates(new int[] {1024, 65535}, false)).isZero();
        assertThat(Ports.candidates(null, false)).isZero();
    }

    /** Linux's file gives end-of-file to every read after the first; the range must come out of it all the same. */
    @Test
    void readsTheRangeFromAFileThatAnswersOnlyItsFirstRead() throws Exception {
        assertThat(Ports.ephemeralRange(new FirstReadOnly("32768\t60999\n"))).containsExactly(32768, 60999);
        assertThat(Ports.ephemeralRange(new FirstReadOnly("1024 65535"))).containsExactly(1024, 65535);
        assertThat(Ports.ephemeralRange(new FirstReadOnly(""))).isNull();
    }

    @Test
    void knowsThisLinuxMachinesRange() throws Exception {
        Path file = Path.of("/proc/sys/net/ipv4/ip_local_port_range");
        assumeTrue(Files.isReadable(file), "no " + file + " here");
        String text;
        try (InputStream in = Files.newInputStream(file)) {
            text = new String(in.readNBytes(256), StandardCharsets.US_ASCII).trim();
        }
        String[] fields = text.split("\\s+");

        assertThat(Ports.ephemeralRange()).as("read from %s (%s)", file, text)
                .containsExactly(Integer.parseInt(fields[0]), Integer.parseInt(fields[1]));
    }

    /** Serves its text to the first read, as a sysctl file under /proc/sys does, and end-of-file to every later one. */
    private static final class FirstReadOnly extends InputStream {
        private final byte[] text;
        private boolean read;

        FirstReadOnly(String text) {
            this.text = text.getBytes(StandardCharsets.US_ASCII);
        }

        @Override
        public int read() {
            byte[] one = new byte[1];
            return read(one, 0, 1) <= 0 ? -1 : one[0] & 0xff;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (len == 0) {
                return 0;
            }
            if (read || text.length == 0) {
                return -1;
            }
            read = true;
            int n = Math.min(len, text.length);
            System.arraycopy(text, 0, b, off, n);
            return n;
        }
    }

    private static Path write(Path dir, String text) throws Exception {
        Path file = Files.createTempFile(dir, "range", "");
        Files.writeString(file, text);
        return file;
    }

    /** What another JVM sees of the port: "taken" or "free". */
    private static String probe(int port) throws Exception {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-cp", System.getProperty("java.class.path"), PortsProbe.class.getName(),
                Integer.toString(port)));
        Process child = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String answer;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8))) {
            answer = out.readLine();
        } finally {
            if (!child.waitFor(60, TimeUnit.SECONDS)) {
                child.destroyForcibly();
            }
        }
        assertThat(child.exitValue()).isZero();
        return answer;
    }
}
