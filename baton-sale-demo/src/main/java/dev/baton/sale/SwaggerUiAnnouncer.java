package dev.baton.sale;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.event.EventListener;
import org.springframework.core.env.Environment;
import org.springframework.stereotype.Component;

/** Logs where the Swagger UI is once the service is ready to serve, so that a person can open it at once. */
@Component
public class SwaggerUiAnnouncer {

    private static final Logger log = LoggerFactory.getLogger(SwaggerUiAnnouncer.class);

    /** Creates the announcer. */
    public SwaggerUiAnnouncer() {
    }

    /**
     * Logs the Swagger UI's URL, built from the port the server actually bound and the servlet context path.
     *
     * @param event the ready event
     */
    @EventListener
    public void announce(ApplicationReadyEvent event) {
        Environment environment = event.getApplicationContext().getEnvironment();
        String port = environment.getProperty("local.server.port", environment.getProperty("server.port", "8080"));
        String contextPath = environment.getProperty("server.servlet.context-path", "");
        log.info("Swagger UI: http://localhost:{}{}/swagger-ui/index.html", port, contextPath);
    }
}
