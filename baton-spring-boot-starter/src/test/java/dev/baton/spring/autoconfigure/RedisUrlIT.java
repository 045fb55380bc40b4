package dev.baton.spring.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.DistributedLock;
import dev.baton.test.RedisServer;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * {@code spring.data.redis.url} is read by Baton's own parser, the one {@code BatonConfig.Builder.uri(...)} and
 * {@code Baton.connect(...)} use, whether Boot's Redis auto-configuration is in the application or excluded: a
 * malformed URL fails the start with that parser's message, and no fragment of its password shows in any exception
 * or log line (as Boot writes it, failure analysis included; what handles the url or a connection at DEBUG).
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisUrlIT {
    private static final String PASSWORD = "url-Secret-8 /?#@:%";

    private static RedisServer secured;

    @BeforeAll
    static void startRedis() {
        secured = RedisServer.start(List.of("--requirepass", PASSWORD));
    }

    @AfterAll
    static void stopRedis() {
        secured.close();
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
    }

    /**
     * Every malformed form of core's {@code RedisAddressTest}, with distinctive passwords (so that a 4-character piece
     * of one cannot turn up in a log line by chance), and the URL of the issue: what core says about it, and the user
     * info that must never show.
     */
    @ParameterizedTest(name = "{0}, Boot's Redis auto-configuration {3}")
    @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
            "redis://:Pq7@Zs/Wk#Rd:1@h:6379            | an '@' follows a '/', '?' or '#'      | Pq7@Zs/Wk#Rd:1",
            "redis://:Pq7@Zs#Sx9cret@h:6379            | an '@' follows a '/', '?' or '#'      | Pq7@Zs#Sx9cret",
            "redis://:Pq7@Zs:Wv?Rk4@h:6379             | an '@' follows a '/', '?' or '#'      | Pq7@Zs:Wv?Rk4",
            "redis://:Hx7unt3r@SECRETPART#x@127.0.0.1:6392 | an '@' follows a '/', '?' or '#' | Hx7unt3r@SECRETPART#x",
            "redis://Uq5:Pq7@Zs@h:abc                  | port must be a number from 1 to 65535 | Uq5:Pq7@Zs",
            "redis://localhost:abc                     | port must be a number from 1 to 65535, was 'abc' | ",
            "redis://localhost:0                       | port must be a number from 1 to 65535 | ",
            "redis://localhost:65536                   | port must be a number from 1 to 65535 | ",
            "redis://:Pw4Kx9Lm@:6379                   | uri has no host                       | Pw4Kx9Lm",
            "redis://:Sq3%zzRt8@h                      | '%' that is not followed by two hex digits | Sq3%zzRt8",
            "redis://:Pw4Kx9Lm@h st:1                  | uri host contains ' '                 | Pw4Kx9Lm",
            "redis://h/db1                             | database must be a number             | ",
            "redis://:Pa$$Kx9@h/x                      | database must be a number             | Pa$$Kx9",
            "redis://h#frag                            | only redis-sentinel:// takes          | ",
            "redis://h?timeout=5s                      | uri option 'timeout' is not supported | ",
            "rediss://h?verifyPeer=maybe               | verifyPeer must be FULL, CA or NONE   | ",
            "http://:Pw4Kx9Lm@h                        | must start with redis://, rediss://   | Pw4Kx9Lm",
            "localhost:6379                            | must start with redis://, rediss://   | ",
            "redis-sentinel://:Pw4Kx9Lm@s1:26379       | needs the master name                 | Pw4Kx9Lm",
            "redis://:Pw4Kx9Lm@[::1                    | without its closing ']'               | Pw4Kx9Lm",
    })
    void aMalformedUrlFailsTheStartWithCoresMessageAndNoFragmentOfThePassword(String url, String says,
                                                                              String userInfo,
                                                                              CapturedOutput output) {
        for (boolean bootsRedis : new boolean[] {false, true}) {
            String label = url + (bootsRedis ? " (Boot's Redis auto-configuration in)" : " (excluded)");
            Throwable failure = startFailure(bootsRedis, "spring.data.redis.url=" + url);
            String messages = TopologiesIT.allMessages(failure);
            assertThat(messages).as(label).contains("spring.data.redis.url").contains(says);
            // Core's parser says the same of the same string.
            assertThat(coresMessage(url)).as(label).contains(says);
            assertThat(messages).as(label).contains(coresMessage(url));
            if (userInfo != null) {
                assertNoFragment(label + ": exception", stackTraces(failure), userInfo);
                assertNoFragment(label + ": log", output.getAll(), userInfo);
            }
        }
    }

    @Test
    void aUrlWithAnUnencodedReservedCharacterInThePasswordNeverReachesRedisUnderAWrongHost(CapturedOutput output) {
        // The issue: java.net.URI read "SECRETPART" as the host, the start failed trying to reach it, and the log named
        // it six times. Core's parser refuses the URL before any connection is tried.
        String url = "redis://:Hx7unt3r@SECRETPART#x@" + secured.host() + ":" + secured.port();
        for (boolean bootsRedis : new boolean[] {false, true}) {
            Throwable failure = startFailure(bootsRedis, "spring.data.redis.url=" + url);
            assertThat(TopologiesIT.allMessages(failure)).contains("percent-encode")
                    .doesNotContain("could not be reached");
            assertThat(stackTraces(failure)).doesNotContain("SECRETPART");
            assertThat(output.getAll()).doesNotContain("SECRETPART");
        }
    }

    @Test
    void aPercentEncodedPasswordWithReservedCharactersConnectsOnBothPaths() {
        String url = "redis://:" + URLEncoder.encode(PASSWORD, StandardCharsets.UTF_8).replace("+", "%20") + "@"
                + secured.host() + ":" + secured.port() + "/5";
        for (boolean bootsRedis : new boolean[] {false, true}) {
            try (ConfigurableApplicationContext context = start(bootsRedis, "spring.data.redis.url=" + url)) {
                Baton baton = context.getBean(Baton.class);
                takesALock(baton);
                assertThat(baton.config().uri()).as("the url as given, read by core").isEqualTo(url);
                assertThat(secured.command("INFO", "keyspace")).as("the url's database").contains("db5:");
            }
        }
    }

    @Test
    void theUrlWinsOverTheSeparateCredentialsAndDatabaseAsInBoot() {
        // Boot: "url overrides host, port, username, password and database".
        String url = "redis://:" + URLEncoder.encode(PASSWORD, StandardCharsets.UTF_8).replace("+", "%20") + "@"
                + secured.host() + ":" + secured.port() + "/6";
        for (boolean bootsRedis : new boolean[] {false, true}) {
            try (ConfigurableApplicationContext context = start(bootsRedis, "spring.data.redis.url=" + url,
                    "spring.data.redis.password=not-the-Password-2", "spring.data.redis.username=nobody",
                    "spring.data.redis.host=127.0.0.1", "spring.data.redis.port=1",
                    "spring.data.redis.database=9")) {
                Baton baton = context.getBean(Baton.class);
                takesALock(baton);
                assertThat(baton.config().username()).isEmpty();
                assertThat(baton.config().password()).as("the url's password, read by core").isEmpty();
                assertThat(secured.command("INFO", "keyspace")).contains("db6:").doesNotContain("db9:");
            }
        }
    }

    /**
     * Only the starter here: with Boot's Redis auto-configuration in, Boot's own connection factory still reads the url
     * (whether it asks for TLS) beside a service connection, and fails on a malformed one in its own words.
     */
    @Test
    void aServiceConnectionReplacesTheUrlAsInBootSoTheStarterDoesNotReadIt() {
        DataRedisConnectionDetails serviceConnection = new DataRedisConnectionDetails() {
            @Override
            public Standalone getStandalone() {
                return Standalone.of(secured.host(), secured.port(), 0);
            }

            @Override
            public String getPassword() {
                return PASSWORD;
            }
        };
        new ApplicationContextRunner().withConfiguration(AutoConfigurations.of(BatonAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.url=redis://:Pq7@Zs/Wk#Rd:1@h:6379")
                .withBean(DataRedisConnectionDetails.class, () -> serviceConnection).run(context -> {
                    assertThat(context).hasNotFailed();
                    takesALock(context.getBean(Baton.class));
                });
    }

    private static void takesALock(Baton baton) {
        DistributedLock lock = baton.lock("url-check");
        assertThat(lock.tryLock()).isTrue();
        lock.unlock();
    }

    /** What core says of the URI, as {@code BatonConfig.Builder} reports it. */
    private static String coresMessage(String uri) {
        try {
            BatonConfig.builder().uri(uri).build();
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        throw new AssertionError("core accepts " + uri);
    }

    /** Fails if any 4-character piece of the user info (or all of it, if shorter) is in the text. */
    private static void assertNoFragment(String what, String text, String userInfo) {
        if (userInfo.length() < 4) {
            assertThat(text).as(what).doesNotContain(userInfo);
            return;
        }
        for (int i = 0; i + 4 <= userInfo.length(); i++) {
            assertThat(text).as("%s shows '%s'", what, userInfo.substring(i, i + 4))
                    .doesNotContain(userInfo.substring(i, i + 4));
        }
    }

    /** The failure's stack traces, causes and suppressed ones included, as a log would print them. */
    private static String stackTraces(Throwable failure) {
        java.io.StringWriter text = new java.io.StringWriter();
        failure.printStackTrace(new java.io.PrintWriter(text));
        return text.toString();
    }

    private static ConfigurableApplicationContext start(boolean bootsRedis, String... properties) {
        // Everything that handles the url or a connection logs at DEBUG: Baton, Lettuce, Spring Data Redis and Boot's
        // Redis auto-configuration; the rest of Boot at INFO, failure analysis included.
        List<String> all = new ArrayList<>(List.of("spring.main.banner-mode=off", "logging.level.dev.baton=debug",
                "logging.level.io.lettuce=debug", "logging.level.org.springframework.data.redis=debug",
                "logging.level.org.springframework.boot.data.redis=debug"));
        if (!bootsRedis) {
            all.add("spring.autoconfigure.exclude=" + DataRedisAutoConfiguration.class.getName());
        }
        all.addAll(List.of(properties));
        return new SpringApplicationBuilder(App.class).web(WebApplicationType.NONE)
                .properties(all.toArray(String[]::new)).run();
    }

    private static Throwable startFailure(boolean bootsRedis, String... properties) {
        try (ConfigurableApplicationContext started = start(bootsRedis, properties)) {
            throw new AssertionError("the application started: " + started);
        } catch (RuntimeException e) {
            return e;
        }
    }
}
