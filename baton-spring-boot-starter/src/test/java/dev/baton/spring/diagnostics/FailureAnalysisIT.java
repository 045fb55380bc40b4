package dev.baton.spring.diagnostics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.baton.spring.DistributedLock;
import dev.baton.test.RedisServer;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * Baton's startup failures, as Spring Boot reports them: the "APPLICATION FAILED TO START" block carries Baton's
 * description (what is wrong, which endpoint or method) and an action, for a Redis that is not running, a wrong
 * password, a malformed URL and a misused annotation; never the password.
 */
@ExtendWith(OutputCaptureExtension.class)
class FailureAnalysisIT {

    private static final String PASSWORD = "right-Pw-4k2Q";
    private static final String WRONG_PASSWORD = "wrong-Pw-9z7X";

    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class App {
    }

    /** A bean whose annotation a proxy cannot apply. */
    public static class PrivatelyLocked {
        @DistributedLock(key = "'x'")
        private void run() {
        }
    }

    private static void failsToStart(List<Class<?>> sources, String... properties) {
        List<String> all = new ArrayList<>(List.of("spring.main.banner-mode=off", "baton.command-timeout=5s"));
        all.addAll(List.of(properties));
        assertThatThrownBy(() -> new SpringApplicationBuilder(sources.toArray(Class<?>[]::new))
                .web(WebApplicationType.NONE).properties(all.toArray(String[]::new)).run().close())
                .isInstanceOf(RuntimeException.class);
    }

    /** The failure-analysis block Boot printed: from its banner to the end of the output. */
    private static String report(CapturedOutput output) {
        String all = output.getAll();
        int start = all.indexOf("APPLICATION FAILED TO START");
        assertThat(start).as("no failure analysis in:%n%s", all).isNotNegative();
        return all.substring(start);
    }

    @Test
    void redisNotRunningSaysWhichEndpointAndWhatToCheck(CapturedOutput output) {
        RedisServer stopped = RedisServer.start();
        stopped.close();

        failsToStart(List.of(App.class), "spring.data.redis.host=" + stopped.host(),
                "spring.data.redis.port=" + stopped.port());

        assertThat(report(output)).contains("Description:")
                .contains("Baton could not connect to Redis while the application started: Redis at "
                        + stopped.host() + ":" + stopped.port() + " could not be reached")
                .contains("Action:").contains("Make sure Redis is running").contains("spring.data.redis.*")
                .doesNotContain("BeanCreationException");
    }

    @Test
    void aWrongPasswordSaysSoAndNeverShowsIt(CapturedOutput output) {
        try (RedisServer secured = RedisServer.start(List.of("--requirepass", PASSWORD))) {
            failsToStart(List.of(App.class), "spring.data.redis.host=" + secured.host(),
                    "spring.data.redis.port=" + secured.port(), "spring.data.redis.password=" + WRONG_PASSWORD);
        }

        assertThat(report(output)).contains("Baton could not start: Redis at ").contains("refused the credentials")
                .contains("Action:").contains("spring.data.redis.password");
        assertThat(output.getAll()).doesNotContain(WRONG_PASSWORD).doesNotContain(PASSWORD);
    }

    @Test
    void aMalformedUrlQuotesBatonsReasonWithoutThePassword(CapturedOutput output) {
        failsToStart(List.of(App.class), "spring.data.redis.url=redis://:" + WRONG_PASSWORD + "@localhost:abc");

        assertThat(report(output)).contains("Baton's configuration cannot be used: ")
                .contains("port must be a number from 1 to 65535").contains("Action:")
                .contains("percent-encoded");
        assertThat(output.getAll()).doesNotContain(WRONG_PASSWORD);
    }

    @Test
    void aMisusedAnnotationNamesTheMethod(CapturedOutput output) {
        try (RedisServer redis = RedisServer.start()) {
            failsToStart(List.of(App.class, PrivatelyLocked.class), "spring.data.redis.host=" + redis.host(),
                    "spring.data.redis.port=" + redis.port());
        }

        assertThat(report(output)).contains("A Baton annotation cannot work as used: @DistributedLock on "
                        + PrivatelyLocked.class.getName())
                .contains("the method is private").contains("Action:").contains("docs/spring-annotations.md");
    }
}
