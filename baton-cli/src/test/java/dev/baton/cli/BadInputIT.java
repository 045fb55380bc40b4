package dev.baton.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.cli.support.BatonProcess;
import dev.baton.test.RedisServer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input gives one line on stderr and exit status 2, with no stack trace and never a password: unknown command or
 * option, bad duration, bad URI, wrong password (from the environment, a file or, discouraged, the URI).
 */
class BadInputIT {
    private static final String PASSWORD = "s3cret-Passw0rd";
    private static final String WRONG = "wr0ng-Passw0rd";

    private static RedisServer redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisServer.start(List.of("--requirepass", PASSWORD));
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    private static void usage(BatonProcess p, String message) {
        assertThat(p.exitCode()).as(p.toString()).isEqualTo(2);
        assertThat(p.stderr()).as(p.toString()).startsWith("baton: ").contains(message)
                .doesNotContain("Exception").doesNotContain("\tat ").doesNotContain(PASSWORD).doesNotContain(WRONG);
        assertThat(p.stdout()).doesNotContain(PASSWORD).doesNotContain(WRONG);
    }

    @Test
    void anUnknownCommandOrOptionIsStatus2WithOneLineAndWhereToFindHelp() {
        BatonProcess unknown = BatonProcess.run("frobnicate");
        usage(unknown, "Unmatched argument");
        assertThat(unknown.stderr().lines()).hasSize(2).last().isEqualTo("Try 'baton --help'.");
        usage(BatonProcess.run("inspect", "x", "--bogus"), "Unknown option: '--bogus'");
        usage(BatonProcess.run(), "a command is needed");
        usage(BatonProcess.run("inspect"), "Missing required parameter: 'NAME'");
    }

    @Test
    void aBadDurationOrKindOrUriIsStatus2() {
        usage(BatonProcess.run("inspect", "x", "--timeout", "3 parsecs"), "'3 parsecs' is not a duration");
        usage(BatonProcess.run("list", "--kind", "spoon"), "unknown kind 'spoon'");
        usage(BatonProcess.run("inspect", "x", "--redis", "http://user:" + PASSWORD + "@host"),
                "'http://***@host' is not a Redis URI");
        usage(BatonProcess.run("inspect", "x", "--redis", "redis://a", "--cluster", "redis://b"),
                "give one of --redis, --cluster and --redlock");
    }

    @Test
    void aWrongPasswordIsStatus2AndNoPasswordIsEverShown(@TempDir Path dir) throws Exception {
        String uri = "redis://127.0.0.1:" + redis.port();
        usage(BatonProcess.run(Map.of("BATON_REDIS_PASSWORD", WRONG), "inspect", "x", "--redis", uri),
                "refused the credentials");
        Path file = dir.resolve("password");
        Files.writeString(file, WRONG + "\n");
        usage(BatonProcess.run("inspect", "x", "--redis", uri, "--password-file", file.toString()),
                "refused the credentials");
        usage(BatonProcess.run("inspect", "x", "--redis", uri, "--password-file", dir.resolve("none").toString()),
                "--password-file: cannot read");
        BatonProcess inUri = BatonProcess.run("inspect", "x", "--redis", "redis://:" + WRONG + "@127.0.0.1:"
                + redis.port());
        usage(inUri, "refused the credentials");
        assertThat(inUri.stderr()).contains("is visible to other users of this machine");
        usage(BatonProcess.run("inspect", "x", "--redis", uri), "requires authentication");

        Files.writeString(file, PASSWORD + "\n");
        BatonProcess right = BatonProcess.run("inspect", "x", "--redis", uri, "--password-file", file.toString());
        assertThat(right.exitCode()).as(right.toString()).isZero();
        BatonProcess fromEnv = BatonProcess.run(Map.of("BATON_REDIS_PASSWORD", PASSWORD, "BATON_REDIS_URI", uri),
                "list", "--json");
        assertThat(fromEnv.exitCode()).as(fromEnv.toString()).isZero();
        assertThat(fromEnv.stdout() + fromEnv.stderr()).doesNotContain(PASSWORD);
    }
}
