#include <meridian/mca/frameworks.h>

#include <meridian/mca/carto/carto.h>
#include <meridian/mca/coord/coord.h>
#include <meridian/mca/msg/msg.h>
#include <meridian/mca/pnet/pnet.h>

extern "C" mca_base_framework_t *const *meridian_builtin_frameworks(void)
{
    static mca_base_framework_t *const frameworks[] = {
        &meridian_carto_base_framework, &meridian_pnet_base_framework,
        &meridian_coord_base_framework, &meridian_msg_base_framework, nullptr};
    return frameworks;
}
