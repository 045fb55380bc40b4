package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ShutdownHookTest {

    @Test
    void crashedJvmLeavesNoRedisServerBehind() throws Exception {
        Path java = Paths.get(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                ShutdownHookProbe.class.getName())
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        String report;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8))) {
            report = out.readLine();
        } finally {
            if (!child.waitFor(20, TimeUnit.SECONDS)) {
                child.destroyForcibly();
            }
        }
        assertThat(report).as("probe output").isNotNull();
        String[] parts = report.split(" ", 2);
        long pid = Long.parseLong(parts[0]);

        assertThat(child.exitValue()).isEqualTo(1);
        // The hook runs to completion before the child JVM exits, so no waiting is needed here.
        assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse();
        assertThat(Paths.get(parts[1])).doesNotExist();
    }
}
