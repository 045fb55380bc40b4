package dev.baton.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Arrays;
import java.util.Map;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RedisBinaryTest {

    private static final String ENV = RedisBinary.ENV_VAR;

    @TempDir
    Path tmp;

    /** A stand-in redis-server that only knows --version, so PATH lookups do not depend on the machine. */
    private Path fakeRedisServer(Path dir, String version) throws IOException {
        Files.createDirectories(dir);
        Path script = dir.resolve("redis-server");
        Files.writeString(script, "#!/bin/sh\necho \"Redis server v=" + version + " sha=00000000:0 bits=64\"\n");
        assertThat(script.toFile().setExecutable(true)).isTrue();
        return script;
    }

    @Test
    void aBinaryWithoutTlsIsRefusedForATlsServerBeforeAnythingStarts() throws IOException {
        Path fake = fakeRedisServer(tmp.resolve("no-tls"), "7.0.0");
        RedisBinary withoutTls = RedisBinary.locate(Map.of(ENV, fake.toString()));

        assertThat(withoutTls.supportsTls()).isFalse();
        assertThatThrownBy(() -> RedisServer.startTls(withoutTls, TlsFiles.generate(), java.util.List.of()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("(Redis 7.0.0) is built without TLS support")
                .hasMessageContaining("BUILD_TLS=yes");
        assertThat(RedisBinary.locate(Map.of(ENV, RedisBinary.EMBEDDED_WORD)).supportsTls()).isTrue();
    }

    @Test
    void envPathTakesPrecedenceOverPath() throws IOException {
        Path explicit = fakeRedisServer(tmp.resolve("explicit"), "1.2.3");
        Path onPath = fakeRedisServer(tmp.resolve("onpath"), "4.5.6");

        RedisBinary binary = RedisBinary.locate(Map.of(ENV, explicit.toString(), "PATH", onPath.getParent().toString()));

        assertThat(binary.source()).isEqualTo(RedisBinary.Source.ENV_PATH);
        assertThat(binary.path()).isEqualTo(explicit.toAbsolutePath());
        assertThat(binary.version()).isEqualTo("1.2.3");
    }

    @Test
    void embeddedWordSelectsTheJarBinaryEvenIfPathHasOne() throws IOException {
        Path onPath = fakeRedisServer(tmp.resolve("onpath"), "4.5.6");

        RedisBinary binary = RedisBinary.locate(Map.of(ENV, " Embedded ", "PATH", onPath.getParent().toString()));

        assertThat(binary.source()).isEqualTo(RedisBinary.Source.EMBEDDED);
        assertThat(Files.isExecutable(binary.path())).isTrue();
        assertThat(binary.version()).startsWith("6.2");
    }

    @Test
    void embeddedBinaryIsExtractedOncePerJvm() {
        RedisBinary first = RedisBinary.locate(Map.of(ENV, "embedded"));
        RedisBinary second = RedisBinary.locate(Map.of());

        assertThat(second.source()).isEqualTo(RedisBinary.Source.EMBEDDED);
        assertThat(second.path()).isEqualTo(first.path());
    }

    @Test
    void withoutEnvVarTheFirstExecutableOnPathWins() throws IOException {
        Path empty = Files.createDirectories(tmp.resolve("empty"));
        Path notExecutable = Files.createDirectories(tmp.resolve("noexec")).resolve("redis-server");
        Files.writeString(notExecutable, "not a binary");
        Path first = fakeRedisServer(tmp.resolve("first"), "7.9.1");
        fakeRedisServer(tmp.resolve("second"), "0.0.1");
        String path = String.join(File.pathSeparator, "", empty.toString(), notExecutable.getParent().toString(),
                first.getParent().toString(), tmp.resolve("second").toString());

        RedisBinary binary = RedisBinary.locate(Map.of(ENV, "  ", "PATH", path));

        assertThat(binary.source()).isEqualTo(RedisBinary.Source.PATH);
        assertThat(binary.path()).isEqualTo(first);
        assertThat(binary.version()).isEqualTo("7.9.1");
    }

    /**
     * This machine's real PATH: the redis-server installed there if there is one, otherwise (a machine with only a
     * JDK, as README promises suffices) the embedded Redis 6.2, which every test then runs on.
     */
    @Test
    void realPathLookupFindsTheInstalledServerOrFallsBackToTheEmbeddedOne() {
        String path = System.getenv("PATH");
        RedisBinary binary = RedisBinary.locate(path == null ? Map.of() : Map.of("PATH", path));
        boolean installed = path != null && Arrays.stream(path.split(Pattern.quote(File.pathSeparator)))
                .filter(dir -> !dir.isBlank())
                .anyMatch(dir -> Files.isExecutable(Paths.get(dir, "redis-server")));

        if (installed) {
            assertThat(binary.source()).isEqualTo(RedisBinary.Source.PATH);
            assertThat(binary.path().getFileName()).hasToString("redis-server");
            assertThat(binary.version()).matches("\\d+\\.\\d+\\.\\d+.*");
        } else {
            assertThat(binary.source()).isEqualTo(RedisBinary.Source.EMBEDDED);
            assertThat(binary.version()).startsWith("6.2");
            assertThat(binary.product()).isEqualTo("Redis");
        }
    }

    @Test
    void nothingOnPathFallsBackToEmbedded() throws IOException {
        Path empty = Files.createDirectories(tmp.resolve("empty"));

        assertThat(RedisBinary.locate(Map.of("PATH", empty.toString())).source()).isEqualTo(RedisBinary.Source.EMBEDDED);
        assertThat(RedisBinary.locate(Map.of()).source()).isEqualTo(RedisBinary.Source.EMBEDDED);
    }

    @Test
    void bogusEnvPathFailsNamingTheVariable() {
        String bogus = tmp.resolve("does-not-exist/redis-server").toString();

        assertThatThrownBy(() -> RedisBinary.locate(Map.of(ENV, bogus, "PATH", System.getenv("PATH"))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(ENV)
                .hasMessageContaining(bogus);
    }

    @Test
    void directoryOrNonExecutableFileInEnvVarIsRejected() throws IOException {
        Path plain = Files.writeString(tmp.resolve("plain"), "x");

        assertThatThrownBy(() -> RedisBinary.locate(Map.of(ENV, tmp.toString())))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining(ENV);
        assertThatThrownBy(() -> RedisBinary.locate(Map.of(ENV, plain.toString())))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining(ENV);
    }

    @Test
    void unparsableVersionOutputFails() throws IOException {
        Path script = Files.createDirectories(tmp.resolve("odd")).resolve("redis-server");
        Files.writeString(script, "#!/bin/sh\necho hello\n");
        assertThat(script.toFile().setExecutable(true)).isTrue();

        RedisBinary binary = RedisBinary.locate(Map.of(ENV, script.toString()));

        assertThatThrownBy(binary::version).isInstanceOf(IllegalStateException.class).hasMessageContaining("hello");
    }

    /** A stand-in valkey-server that prints what Valkey 8.0.1 prints for --version. */
    private Path fakeValkeyServer(Path dir) throws IOException {
        Files.createDirectories(dir);
        Path script = dir.resolve("valkey-server");
        Files.writeString(script, "#!/bin/sh\necho \"Valkey server v=8.0.1 sha=00000000:1 malloc=libc bits=64"
                + " build=10f750733070d77\"\n");
        assertThat(script.toFile().setExecutable(true)).isTrue();
        return script;
    }

    @Test
    void thePropertyTakesPrecedenceOverPath() throws IOException {
        Path byProperty = fakeValkeyServer(tmp.resolve("property"));
        Path onPath = fakeRedisServer(tmp.resolve("onpath"), "4.5.6");

        RedisBinary binary = RedisBinary.locate(byProperty.toString(), Map.of("PATH", onPath.getParent().toString()));

        assertThat(binary.source()).isEqualTo(RedisBinary.Source.PROPERTY);
        assertThat(binary.path()).isEqualTo(byProperty.toAbsolutePath());
        assertThat(binary.product()).isEqualTo("Valkey");
        assertThat(binary.version()).isEqualTo("8.0.1");
    }

    /** A build sets the variable for some test JVMs (the embedded-Redis execution); a -D for all must not undo it. */
    @Test
    void theVariableTakesPrecedenceOverTheProperty() throws IOException {
        Path byProperty = fakeValkeyServer(tmp.resolve("property"));
        Path byVariable = fakeRedisServer(tmp.resolve("variable"), "7.0.15");

        RedisBinary binary = RedisBinary.locate(byProperty.toString(), Map.of(ENV, byVariable.toString()));
        RedisBinary embedded = RedisBinary.locate(byProperty.toString(), Map.of(ENV, RedisBinary.EMBEDDED_WORD));

        assertThat(binary.source()).isEqualTo(RedisBinary.Source.ENV_PATH);
        assertThat(binary.product()).isEqualTo("Redis");
        assertThat(binary.version()).isEqualTo("7.0.15");
        assertThat(embedded.source()).isEqualTo(RedisBinary.Source.EMBEDDED);
    }

    @Test
    void aBlankVariableLeavesTheLookupToTheProperty() throws IOException {
        Path byProperty = fakeValkeyServer(tmp.resolve("property"));

        RedisBinary binary = RedisBinary.locate(byProperty.toString(), Map.of(ENV, " "));

        assertThat(binary.source()).isEqualTo(RedisBinary.Source.PROPERTY);
        assertThat(binary.product()).isEqualTo("Valkey");
    }

    @Test
    void thePropertyTakesTheEmbeddedWordToo() throws IOException {
        Path onPath = fakeRedisServer(tmp.resolve("onpath"), "7.0.15");

        RedisBinary binary = RedisBinary.locate(" EMBEDDED", Map.of("PATH", onPath.getParent().toString()));

        assertThat(binary.source()).isEqualTo(RedisBinary.Source.EMBEDDED);
        assertThat(binary.product()).isEqualTo("Redis");
        assertThat(binary.version()).startsWith("6.2");
    }

    @Test
    void aBogusPropertyFailsNamingTheProperty() {
        String bogus = tmp.resolve("does-not-exist/valkey-server").toString();

        assertThatThrownBy(() -> RedisBinary.locate(bogus, Map.of("PATH", System.getenv("PATH"))))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageStartingWith(RedisBinary.PROPERTY + "=" + bogus + " is not an executable file")
                .hasMessageNotContaining(ENV);
    }

    @Test
    void locateReadsTheJvmsSystemPropertyAfterTheEnvironment() throws IOException {
        Path byProperty = fakeValkeyServer(tmp.resolve("property"));
        String variable = System.getenv(ENV);
        String before = System.getProperty(RedisBinary.PROPERTY);
        System.setProperty(RedisBinary.PROPERTY, byProperty.toString());
        try {
            RedisBinary binary = RedisBinary.locate();

            if (variable == null || variable.isBlank()) {
                assertThat(binary.source()).isEqualTo(RedisBinary.Source.PROPERTY);
                assertThat(binary.path()).isEqualTo(byProperty.toAbsolutePath());
            } else { // as in CI's runs on the embedded Redis and on Valkey
                assertThat(binary.source()).isIn(RedisBinary.Source.ENV_PATH, RedisBinary.Source.EMBEDDED);
            }
        } finally {
            if (before == null) {
                System.clearProperty(RedisBinary.PROPERTY);
            } else {
                System.setProperty(RedisBinary.PROPERTY, before);
            }
        }
    }

    @Test
    void theVersionLineOfRedisAndOfValkeyIsRead() {
        Path binary = Path.of("/x/server");
        RedisBinary.Identity valkey = RedisBinary.parseVersionLine(binary,
                "Valkey server v=8.0.1 sha=00000000:1 malloc=libc bits=64 build=10f750733070d77");
        RedisBinary.Identity redis = RedisBinary.parseVersionLine(binary,
                "Redis server v=7.0.15 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 build=ae4d7c971a948f0");
        RedisBinary.Identity unnamed = RedisBinary.parseVersionLine(binary, "v=6.2.6 sha=00000000:0");

        assertThat(valkey).isEqualTo(new RedisBinary.Identity("Valkey", "8.0.1"));
        assertThat(redis).isEqualTo(new RedisBinary.Identity("Redis", "7.0.15"));
        assertThat(unnamed).isEqualTo(new RedisBinary.Identity("Redis", "6.2.6"));
        assertThatThrownBy(() -> RedisBinary.parseVersionLine(binary, "Valkey server"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("/x/server");
    }

    @Test
    void aValkeyWithoutTlsIsNamedAsValkeyWhenRefused() throws IOException {
        RedisBinary withoutTls = RedisBinary.locate(Map.of(ENV, fakeValkeyServer(tmp.resolve("no-tls")).toString()));

        assertThatThrownBy(() -> RedisServer.startTls(withoutTls, TlsFiles.generate(), java.util.List.of()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("(Valkey 8.0.1) is built without TLS support")
                .hasMessageContaining(RedisBinary.PROPERTY).hasMessageContaining(ENV);
    }

    @Test
    void embeddedResourceIsChosenByPlatform() {
        assertThat(RedisBinary.embeddedResourceName("Linux", "amd64")).isEqualTo("redis-server-6.2.6-v5-linux-amd64");
        assertThat(RedisBinary.embeddedResourceName("Linux", "aarch64")).isEqualTo("redis-server-6.2.7-linux-arm64");
        assertThat(RedisBinary.embeddedResourceName("Mac OS X", "x86_64")).isEqualTo("redis-server-6.2.6-v5-darwin-amd64");
        assertThat(RedisBinary.embeddedResourceName("Mac OS X", "aarch64")).isEqualTo("redis-server-6.2.6-v5-darwin-arm64");
        assertThatThrownBy(() -> RedisBinary.embeddedResourceName("Windows 11", "amd64"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining(ENV);
    }

    @Test
    void everyMappedResourceShipsInTheJar() {
        for (String[] platform : new String[][] {
                {"Linux", "amd64"}, {"Linux", "aarch64"}, {"Linux", "i386"}, {"Mac OS X", "x86_64"}, {"Mac OS X", "aarch64"}}) {
            String resource = RedisBinary.embeddedResourceName(platform[0], platform[1]);
            assertThat(getClass().getClassLoader().getResource(resource)).as(resource).isNotNull();
        }
    }
}
