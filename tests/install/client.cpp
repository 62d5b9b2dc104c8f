// A C++ client of the installed library (tests/cli_install.sh): the C header from C++ (extern "C"), the
// job handle owned by a std::unique_ptr, the JSON entry point's result and error in std::strings. Prints
// the policies, the shift schedule's makespan on 8 SMs (as client.c does), and the error a bad request gets.
#include <dashsim/dashsim.h>

#include <cstdio>
#include <memory>
#include <string>

// A string the library returned, taken over (freed with dashsim_free).
static std::string take(char *s)
{
    std::string copy = s ? s : "";
    dashsim_free(s);
    return copy;
}

int main()
{
    for (int i = 0; i < dashsim_policy_count(); i++)
        std::printf("policy %s\n", dashsim_policy_name(i));
    std::unique_ptr<DashsimJob, void (*)(DashsimJob *)> job(dashsim_job_new(), dashsim_job_free);
    DashsimError err;
    DashsimResult r;
    if (dashsim_job_set_policy(job.get(), "shift", &err) != DASHSIM_OK ||
        dashsim_job_set_shape(job.get(), 8, 2, 8, 8, &err) != DASHSIM_OK ||
        dashsim_job_run(job.get(), &r, &err) != DASHSIM_OK)
        return std::fprintf(stderr, "%s\n", err.message), 2;
    std::printf("%s shift makespan_ns %lld\n", dashsim_version(), static_cast<long long>(r.makespan_ns));
    char *result = nullptr, *error = nullptr;
    DashsimStatus status = dashsim_run_json("{\"schema_version\": 1, \"workload\": {\"heads\": 0}}", &result, &error);
    std::printf("bad request: %s: %s\n", dashsim_strerror(status), take(error).c_str());
    return take(result).empty() ? 0 : 2;
}
