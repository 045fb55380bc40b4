package dev.baton.spring.web;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.RateLimitExceededException;
import dev.baton.spring.Limit;
import dev.baton.spring.RateLimited;
import dev.baton.spring.aop.TestBatonConfiguration;
import dev.baton.test.RedisExtension;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
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
 * Spring MVC and WebFlux applications on random ports answer a refused {@code @RateLimited} handler with 429,
 * {@code Retry-After}, {@code RateLimit}, {@code RateLimit-Policy} and a problem+json body, and leave the refusal to
 * the application's own {@code @ExceptionHandler} where it has one.
 */
class WebResponsesIT {

    @RegisterExtension
    static final RedisExtension redis = new RedisExtension();

    @RestController
    static class BuyController {
        @GetMapping("/buy/{user}")
        @RateLimited(key = "'buy:' + #user", limits = @Limit(permits = 2, period = "60s"))
        public String buy(@PathVariable("user") String user) {
            return "bought";
        }

        /** A bucket of 3 refilled at one a minute, beside a daily limit; each call takes 2. */
        @GetMapping("/bucket/{user}")
        @RateLimited(key = "'bucket:' + #user", cost = 2, limits = {
                @Limit(permits = 60, period = "1h", burst = 3), @Limit(permits = 100, period = "1d")})
        public String bucket(@PathVariable("user") String user) {
            return "bought";
        }

        @GetMapping("/reactive/{user}")
        @RateLimited(key = "'reactive:' + #user", limits = @Limit(permits = 2, period = "60s"))
        public Mono<String> reactive(@PathVariable("user") String user) {
            return Mono.just("bought");
        }
    }

    /** The application's own answer to refusals. */
    @RestControllerAdvice
    static class OwnHandler {
        @ExceptionHandler(RateLimitExceededException.class)
        ResponseEntity<String> refused(RateLimitExceededException e) {
            return ResponseEntity.status(HttpStatus.SERVICE_UNAVAILABLE).body("own handler");
        }
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({TestBatonConfiguration.class, BuyController.class})
    static class WebApp {
    }

    @SpringBootConfiguration
    @EnableAutoConfiguration
    @Import({TestBatonConfiguration.class, BuyController.class, OwnHandler.class})
    static class WebAppWithOwnHandler {
    }

    private static ConfigurableApplicationContext start(Class<?> app, WebApplicationType type) {
        return new SpringApplicationBuilder(app).web(type).properties("test.redis.uri=" + redis.server().uri(),
                "server.port=0", "spring.main.banner-mode=off").run();
    }

    /**
     * One request on a connection of its own. Reactor Netty 1.3.6, which Spring Boot 4.0.7 manages, can stop reading a
     * keep-alive connection when the next request arrives while the previous response is still completing on another
     * thread (reactor/reactor-netty#4361): in a loop of these requests on Boot 4.0.7, about one in 150 hung until the
     * client's timeout, and each traced hang was a request the server never read (no rate-limit decision was made for
     * it); with Reactor 2025.0.8 (Reactor Netty 1.3.8, Boot 4.1.2's) none in 900. A fresh connection per request keeps these tests about
     * Baton's answers; README's Spring section tells WebFlux users on Boot 4.0 which Reactor to take.
     */
    private static HttpResponse<String> get(ConfigurableApplicationContext context, String path) throws Exception {
        String port = context.getEnvironment().getProperty("local.server.port");
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
        return http.send(HttpRequest.newBuilder(URI.create("http://localhost:" + port + path))
                .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static void refusalIsA429WithRateLimitHeaders(ConfigurableApplicationContext context, String path)
            throws Exception {
        assertThat(get(context, path).statusCode()).isEqualTo(200);
        assertThat(get(context, path).body()).isEqualTo("bought");

        HttpResponse<String> refused = get(context, path);

        assertThat(refused.statusCode()).isEqualTo(429);
        long retryAfter = Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow());
        // 2 per 60 s: one permit comes back every 30 s.
        assertThat(retryAfter).isBetween(1L, 30L);
        assertThat(refused.headers().firstValue("RateLimit-Policy")).hasValue("\"2-per-60s\";q=2;w=60");
        String rateLimit = refused.headers().firstValue("RateLimit").orElseThrow();
        Matcher m = Pattern.compile("\"2-per-60s\";r=0;t=(\\d+)").matcher(rateLimit);
        assertThat(m.matches()).as(rateLimit).isTrue();
        assertThat(Long.parseLong(m.group(1))).isBetween(retryAfter, 60L);
        assertThat(refused.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(refused.body()).contains("\"status\":429").contains("\"instance\":\"" + path + "\"")
                .contains("\"title\":\"Too Many Requests\"")
                .contains("\"retryAfterSeconds\":" + retryAfter).doesNotContain("buy:").doesNotContain("reactive:");
    }

    @Test
    void springMvcAnswersARefusalWith429() throws Exception {
        try (ConfigurableApplicationContext context = start(WebApp.class, WebApplicationType.SERVLET)) {
            refusalIsA429WithRateLimitHeaders(context, "/buy/alice");
            refusalIsA429WithRateLimitHeaders(context, "/reactive/alice");
        }
    }

    @Test
    void springWebFluxAnswersARefusalWith429() throws Exception {
        try (ConfigurableApplicationContext context = start(WebApp.class, WebApplicationType.REACTIVE)) {
            refusalIsA429WithRateLimitHeaders(context, "/reactive/bob");
            refusalIsA429WithRateLimitHeaders(context, "/buy/bob");
        }
    }

    @Test
    void aRefusalByATokenBucketDescribesTheBucket() throws Exception {
        try (ConfigurableApplicationContext context = start(WebApp.class, WebApplicationType.SERVLET)) {
            assertThat(get(context, "/bucket/dave").statusCode()).isEqualTo(200);

            // 1 of 3 left, 2 asked: refused by the bucket, whose policy is its size and the minutes to refill it.
            HttpResponse<String> refused = get(context, "/bucket/dave");

            assertThat(refused.statusCode()).isEqualTo(429);
            long retryAfter = Long.parseLong(refused.headers().firstValue("Retry-After").orElseThrow());
            assertThat(retryAfter).isBetween(1L, 60L); // one more permit: a minute at most
            assertThat(refused.headers().firstValue("RateLimit-Policy"))
                    .hasValue("\"60-per-3600s-burst-3\";q=3;w=180");
            String rateLimit = refused.headers().firstValue("RateLimit").orElseThrow();
            Matcher m = Pattern.compile("\"60-per-3600s-burst-3\";r=0;t=(\\d+)").matcher(rateLimit);
            assertThat(m.matches()).as(rateLimit).isTrue();
            assertThat(Long.parseLong(m.group(1))).isBetween(retryAfter, 180L);
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
        get(context, "/buy/carol");
        get(context, "/buy/carol");
        HttpResponse<String> refused = get(context, "/buy/carol");
        assertThat(refused.statusCode()).isEqualTo(503);
        assertThat(refused.body()).isEqualTo("own handler");
        assertThat(refused.headers().firstValue("RateLimit")).isEmpty();
    }

    @Test
    void theResponsesCanBeSwitchedOff() throws Exception {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(WebApp.class)
                .web(WebApplicationType.SERVLET).properties("test.redis.uri=" + redis.server().uri(),
                        "server.port=0", "baton.rate-limit.web-responses=false").run()) {
            assertThat(context.getBeansOfType(RateLimitExceededMvcResolver.class)).isEmpty();
        }
    }
}
