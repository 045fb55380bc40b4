package dev.baton.spring.web;

import java.net.URI;
import java.util.Map;
import java.util.Objects;
import org.springframework.core.ResolvableType;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatusCode;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.codec.HttpMessageWriter;
import org.springframework.http.codec.ServerCodecConfigurer;
import org.springframework.http.server.reactive.ServerHttpResponse;
import org.springframework.web.server.ServerWebExchange;
import reactor.core.publisher.Mono;

/**
 * Writes one of Baton's answers in Spring WebFlux: the status of its problem body, its headers, and the body as
 * {@code application/problem+json} with the application's codecs (none that writes problem+json: status and headers
 * only). The one place both WebFlux handlers ({@link RateLimitExceededWebFluxHandler},
 * {@link UnavailableWebFluxHandler}) write a response. Thread-safe.
 */
final class WebFluxProblemWriter {
    private static final ResolvableType PROBLEM = ResolvableType.forClass(ProblemDetail.class);

    private final ServerCodecConfigurer codecs;

    /** @param codecs the application's codecs, which write the body */
    WebFluxProblemWriter(ServerCodecConfigurer codecs) {
        this.codecs = Objects.requireNonNull(codecs, "codecs");
    }

    /** Writes the answer to an exchange whose response is not committed yet. */
    @SuppressWarnings("unchecked")
    Mono<Void> answer(ServerWebExchange exchange, HttpHeaders headers, ProblemDetail body) {
        ServerHttpResponse response = exchange.getResponse();
        body.setInstance(URI.create(exchange.getRequest().getPath().value()));
        response.setStatusCode(HttpStatusCode.valueOf(body.getStatus()));
        response.getHeaders().addAll(headers);
        for (HttpMessageWriter<?> writer : codecs.getWriters()) {
            if (writer.canWrite(PROBLEM, MediaType.APPLICATION_PROBLEM_JSON)) {
                return ((HttpMessageWriter<Object>) writer).write(Mono.just(body), PROBLEM,
                        MediaType.APPLICATION_PROBLEM_JSON, response, Map.of());
            }
        }
        return response.setComplete();
    }
}
