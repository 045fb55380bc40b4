package dev.baton.sale;

import io.swagger.v3.oas.annotations.OpenAPIDefinition;
import io.swagger.v3.oas.annotations.info.Info;
import io.swagger.v3.oas.annotations.info.License;
import org.springframework.context.annotation.Configuration;

/** The title and description the Swagger UI shows above the operations. */
@Configuration(proxyBeanMethods = false)
@OpenAPIDefinition(info = @Info(title = "Baton limited stock sale", version = "1",
        description = "Buy items whose stock is guarded by a Baton distributed lock per item, rate limited per buyer;"
                + " a scheduled restock runs on one instance of the fleet per period.",
        license = @License(name = "Apache-2.0", url = "https://www.apache.org/licenses/LICENSE-2.0")))
public class OpenApiConfiguration {

    /** Created by Spring. */
    public OpenApiConfiguration() {
    }
}
