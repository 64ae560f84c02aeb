// ServingContext helpers.
#include "api/serving_context.h"

#include <algorithm>

namespace gemmad::api {

bool ServingContext::IsServedModel(const std::string& name) const {
  return std::find(options.served_model_names.begin(), options.served_model_names.end(), name) !=
         options.served_model_names.end();
}

}  // namespace gemmad::api
