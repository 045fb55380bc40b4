package dev.baton.spring.web;

import dev.baton.Baton;
import java.net.URI;
import java.util.Map;
import java.util.Objects;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;
import org.springframework.core.ResolvableType;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import org.springframework.web.server.WebExceptionHandler;
import reactor.core.publisher.Mono;

/**
 * Spring WebFlux: answers a lock not acquired in time or Redis unavailable that no handler of the application took
 * with {@link UnavailableResponse} (503, {@code Retry-After}, {@code application/problem+json}). Exception handlers of
 * controllers and {@code @ControllerAdvice} run inside the dispatcher, before any {@link WebExceptionHandler}, so an
 * application's own handler always wins; this one runs just before Spring Boot's error handler (order
 * {@value #ORDER}), which would otherwise answer 500 and log the stack trace at ERROR. The body is written with the
 * application's codecs; without one for problem+json the response has the status and headers and no body. Logged as
 * {@link UnavailableMvcResolver} logs. Thread-safe.
 */
public final class UnavailableWebFluxHandler implements WebExceptionHandler, Ordered {

    /** Just before Spring Boot's {@code DefaultErrorWebExceptionHandler} (-1). */
    public static final int ORDER = -2;

    private static final ResolvableType PROBLEM = ResolvableType.forClass(ProblemDetail.class);

    private final ServerCodecConfigurer codecs;
    private final ObjectProvider<Baton> baton;

    /**
     * @param codecs the application's codecs, which write the body
     * @param baton  provides the command timeout for {@code Retry-After}, looked up at each outage (1 s without one)
     */
    public UnavailableWebFluxHandler(ServerCodecConfigurer codecs, ObjectProvider<Baton> baton) {
        this.codecs = Objects.requireNonNull(codecs, "codecs");
        this.baton = Objects.requireNonNull(baton, "baton");
    }

    @Override
    public int getOrder() {
        return ORDER;
    }

    @Override
    @SuppressWarnings("unchecked")
    public Mono<Void> handle(ServerWebExchange exchange, Throwable ex) {
        UnavailableResponse answer = UnavailableResponse.of(ex, baton).orElse(null);
        ServerHttpResponse response = exchange.getResponse();
        if (answer == null || response.isCommitted()) {
            return Mono.error(ex);
        }
        String path = exchange.getRequest().getPath().value();
        answer.log(exchange.getRequest().getMethod() + " " + path);
        answer.body().setInstance(URI.create(path));
        response.setStatusCode(UnavailableResponse.STATUS);
        response.getHeaders().addAll(answer.headers());
        for (HttpMessageWriter<?> writer : codecs.getWriters()) {
            if (writer.canWrite(PROBLEM, MediaType.APPLICATION_PROBLEM_JSON)) {
                return ((HttpMessageWriter<Object>) writer).write(Mono.just(answer.body()), PROBLEM,
                        MediaType.APPLICATION_PROBLEM_JSON, response, Map.of());
            }
        }
        return response.setComplete();
    }
}
