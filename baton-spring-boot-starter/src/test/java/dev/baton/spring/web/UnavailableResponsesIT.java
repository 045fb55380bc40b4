package dev.baton.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.Baton;
import dev.baton.BatonUnavailableException;
import dev.baton.Lease;
import dev.baton.spring.DistributedLock;
import dev.baton.spring.Limit;
import dev.baton.spring.LockNotAcquiredException;
import dev.baton.spring.RateLimited;
import dev.baton.spring.aop.TestBatonConfiguration;
import dev.baton.test.RedisExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Import;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import reactor.core.publisher.Mono;

/**
 * Spring MVC and WebFlux applications on random ports answer a {@code @DistributedLock} not acquired within its wait,
 * and a Redis that is paused or killed behind {@code @RateLimited} and {@code @DistributedLock}, with 503, a
 * {@code Retry-After} (the wait, or the command timeout, in whole seconds rounded up) and a problem+json body, and log
 * no stack trace for it; the application's own {@code @ExceptionHandler} wins, and
 * {@code baton.web.unavailable-responses=false} leaves the failures to Spring (500). A class of its own, since it
 * pauses and kills its Redis.
 */
@ExtendWith(OutputCaptureExtension.class)
class UnavailableResponsesIT {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    @RestController
    static class StockController {
        @GetMapping("/stock/{item}")
        @DistributedLock(key = "'stock:' + #item", waitTime = "1500ms")
        public String take(@PathVariable("item") String item) {
            return "taken";
        }

        @GetMapping("/limited/{user}")
        @RateLimited(key = "'limited:' + #user", limits = @Limit(permits = 100, period = "60s"))
        public String limited(@PathVariable("user") String user) {
            return "ok";
        }

        @GetMapping("/reactive/{user}")
        @RateLimited(key = "'reactive:' + #user", limits = @Limit(permits = 100, period = "60s"))
        public Mono<String> reactive(@PathVariable("user") String user) {
            return Mono.just("ok");
        }
    }

    /** The application's own answer to Baton's failures. */
    @RestControllerAdvice
    static class OwnHandler {
        @ExceptionHandler({LockNotAcquiredException.class, BatonUnavailableException.class})
        ResponseEntity<String> failed(RuntimeException e) {
            return ResponseEntity.status(HttpStatus.CONFLICT).body("own handler");
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({TestBatonConfiguration.class, StockController.class})
    static class WebApp {
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({TestBatonConfiguration.class, StockController.class, OwnHandler.class})
    static class WebAppWithOwnHandler {
    }

    private static ConfigurableApplicationContext start(Class<?> app, WebApplicationType type, String... extra) {
        List<String> properties = new ArrayList<>(List.of("test.redis.uri=" + redis.server().uri(), "server.port=0",
                "spring.main.banner-mode=off"));
        properties.addAll(List.of(extra));
        return new SpringApplicationBuilder(app).web(type).properties(properties.toArray(String[]::new)).run();
    }

    /** One request on a connection of its own (see {@code WebResponsesIT#get}). */
    private static HttpResponse<String> get(ConfigurableApplicationContext context, String path) throws Exception {
        String port = context.getEnvironment().getProperty("local.server.port");
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        return http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** The request, while this test holds the lock its handler needs. */
    private static HttpResponse<String> getWhileLockIsHeld(ConfigurableApplicationContext context, String item)
            throws Exception {
        Baton baton = context.getBean(Baton.class);
        try (Lease held = baton.lock("stock:" + item).acquire(Duration.ofSeconds(10))) {
            return get(context, "/stock/" + item);
        }
    }

    private static void isA503(HttpResponse<String> answer, String path, long retryAfter) {
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(503);
        assertThat(answer.headers().firstValue("Retry-After")).hasValue(Long.toString(retryAfter));
        assertThat(answer.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(answer.body()).contains("\"status\":503").contains("\"title\":\"Service Unavailable\"")
                .contains("\"instance\":\"" + path + "\"").contains("\"retryAfterSeconds\":" + retryAfter)
                // Neither the lock's name (made from the request) nor the Redis endpoint is echoed.
                .doesNotContain("stock:").doesNotContain("Redis at").doesNotContain(redis.server().host() + ":");
    }

    private static void aLockNotAcquiredInTimeIsA503(ConfigurableApplicationContext context, String item,
                                                     CapturedOutput output) throws Exception {
        assertThat(get(context, "/stock/" + item).body()).isEqualTo("taken");

        HttpResponse<String> busy = getWhileLockIsHeld(context, item);

        // The wait of 1.5 s, rounded up: the lock was held elsewhere for at least that long.
        isA503(busy, "/stock/" + item, 2);
        assertThat(busy.body()).contains("not acquired in time");
        assertThat(output.getAll()).as("an expected outcome, not an error with a stack trace")
                .doesNotContain("LockNotAcquiredException");
        assertThat(get(context, "/stock/" + item).body()).isEqualTo("taken");
    }

    @Test
    void springMvcAnswersALockNotAcquiredInTimeWith503(CapturedOutput output) throws Exception {
        try (ConfigurableApplicationContext context = start(WebApp.class, WebApplicationType.SERVLET)) {
            aLockNotAcquiredInTimeIsA503(context, "mvc", output);
        }
    }

    @Test
    void springWebFluxAnswersALockNotAcquiredInTimeWith503(CapturedOutput output) throws Exception {
        try (ConfigurableApplicationContext context = start(WebApp.class, WebApplicationType.REACTIVE)) {
            aLockNotAcquiredInTimeIsA503(context, "flux", output);
        }
    }

    /** Paused: {@code @RateLimited} gives up after the rate-limit timeout; killed: both annotations fail. */
    private static void anOutageIsA503(ConfigurableApplicationContext context, String limitedPath,
                                       CapturedOutput output) throws Exception {
        long commandTimeout = UnavailableResponse.seconds(context.getBean(Baton.class).config().commandTimeout());
        assertThat(get(context, limitedPath).body()).isEqualTo("ok");
        assertThat(get(context, "/stock/x").body()).isEqualTo("taken");

        redis.server().pause();
        isA503(get(context, limitedPath), limitedPath, commandTimeout);

        redis.server().kill();
        isA503(get(context, limitedPath), limitedPath, commandTimeout);
        isA503(get(context, "/stock/x"), "/stock/x", commandTimeout);

        assertThat(output.getAll()).as("one WARN line each, naming the request and Baton's message")
                .contains("GET " + limitedPath + ": 503 Service Unavailable, Redis at ")
                .contains("GET /stock/x: 503 Service Unavailable, Redis at ")
                .doesNotContain("BatonUnavailableException");
    }

    @Test
    void springMvcAnswersRedisUnavailableWith503(CapturedOutput output) throws Exception {
        try (ConfigurableApplicationContext context = start(WebApp.class, WebApplicationType.SERVLET)) {
            anOutageIsA503(context, "/limited/ann", output);
        }
    }

    @Test
    void springWebFluxAnswersRedisUnavailableWith503(CapturedOutput output) throws Exception {
        try (ConfigurableApplicationContext context = start(WebApp.class, WebApplicationType.REACTIVE)) {
            anOutageIsA503(context, "/reactive/bea", output);
        }
    }

    @Test
    void theApplicationsOwnHandlerWinsInMvc() throws Exception {
        try (ConfigurableApplicationContext context = start(WebAppWithOwnHandler.class,
                WebApplicationType.SERVLET)) {
            ownHandlerAnswers(context);
        }
    }

    @Test
    void theApplicationsOwnHandlerWinsInWebFlux() throws Exception {
        try (ConfigurableApplicationContext context = start(WebAppWithOwnHandler.class,
                WebApplicationType.REACTIVE)) {
            ownHandlerAnswers(context);
        }
    }

    private static void ownHandlerAnswers(ConfigurableApplicationContext context) throws Exception {
        HttpResponse<String> busy = getWhileLockIsHeld(context, "own");
        assertThat(busy.statusCode()).isEqualTo(409);
        assertThat(busy.body()).isEqualTo("own handler");
        assertThat(busy.headers().firstValue("Retry-After")).isEmpty();

        redis.server().kill();
        HttpResponse<String> down = get(context, "/limited/own");
        assertThat(down.statusCode()).isEqualTo(409);
        assertThat(down.body()).isEqualTo("own handler");
    }

    @Test
    void switchedOffTheFailuresAreLeftToSpringAsA500() throws Exception {
        for (WebApplicationType type : new WebApplicationType[] {WebApplicationType.SERVLET,
                WebApplicationType.REACTIVE}) {
            try (ConfigurableApplicationContext context = start(WebApp.class, type,
                    "baton.web.unavailable-responses=false")) {
                assertThat(context.getBeansOfType(UnavailableMvcResolver.class)).isEmpty();
                assertThat(context.getBeansOfType(UnavailableWebFluxHandler.class)).isEmpty();

                HttpResponse<String> busy = getWhileLockIsHeld(context, "off-" + type);
                assertThat(busy.statusCode()).as(type.toString()).isEqualTo(500);
                assertThat(busy.headers().firstValue("Retry-After")).isEmpty();
            }
        }
    }
}
