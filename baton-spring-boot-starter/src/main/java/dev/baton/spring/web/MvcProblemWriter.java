package dev.baton.spring.web;

import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URI;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.http.HttpHeaders;
import org.springframework.http.MediaType;
import org.springframework.http.ProblemDetail;
import org.springframework.http.converter.HttpMessageConverter;
import org.springframework.http.server.ServletServerHttpResponse;
import org.springframework.web.servlet.ModelAndView;
import org.springframework.web.servlet.mvc.method.annotation.RequestMappingHandlerAdapter;

/**
 * Writes one of Baton's answers in Spring MVC: the status of its problem body, its headers, and the body as
 * {@code application/problem+json} with the application's message converters (none that writes problem+json: status
 * and headers only). The one place both MVC resolvers ({@link RateLimitExceededMvcResolver},
 * {@link UnavailableMvcResolver}) write a response. Thread-safe.
 */
final class MvcProblemWriter {
    private static final Logger log = LoggerFactory.getLogger(MvcProblemWriter.class);

    private final ObjectProvider<RequestMappingHandlerAdapter> adapter;

    /** @param adapter provides the application's message converters, looked up at each answer */
    MvcProblemWriter(ObjectProvider<RequestMappingHandlerAdapter> adapter) {
        this.adapter = Objects.requireNonNull(adapter, "adapter");
    }

    /**
     * Writes the answer to a request whose response is not committed yet.
     *
     * @return the empty model and view that tells the dispatcher the exception was handled
     */
    ModelAndView answer(HttpServletRequest request, HttpServletResponse response, HttpHeaders headers,
                        ProblemDetail body) {
        response.setStatus(body.getStatus());
        headers.forEach((name, values) -> values.forEach(v -> response.addHeader(name, v)));
        body.setInstance(URI.create(request.getRequestURI()));
        try {
            write(body, response);
        } catch (IOException e) {
            log.debug("could not write the {} body: {}", body.getStatus(), e.getMessage());
        }
        return new ModelAndView(); // handled: nothing more to render
    }

    @SuppressWarnings("unchecked")
    private void write(ProblemDetail body, HttpServletResponse response) throws IOException {
        RequestMappingHandlerAdapter a = adapter.getIfAvailable();
        List<HttpMessageConverter<?>> converters = a != null ? a.getMessageConverters() : List.of();
        for (HttpMessageConverter<?> converter : converters) {
            if (converter.canWrite(ProblemDetail.class, MediaType.APPLICATION_PROBLEM_JSON)) {
                try (ServletServerHttpResponse out = new ServletServerHttpResponse(response)) {
                    ((HttpMessageConverter<Object>) converter).write(body, MediaType.APPLICATION_PROBLEM_JSON, out);
                }
                return;
            }
        }
    }
}
