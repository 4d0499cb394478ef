# The independent oracle of test_matern_fit: scikit-learn's GaussianProcessRegressor with
# ConstantKernel(sigma2) * Matern(length_scale=rho, nu) + WhiteKernel(sigma2_e) on points X,
# its log_marginal_likelihood at those parameters (zero mean, y as given); with a 7th argument
# `grad` also its gradient in log sigma2, log rho, log sigma2_e (nu is fixed in scikit-learn).
# usage: matern_sklearn_oracle.py points.txt y.txt sigma2 rho nu sigma2_e [grad]  -> prints the value(s)
import sys
import numpy as np
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import ConstantKernel, Matern, WhiteKernel

pts = np.loadtxt(sys.argv[1], ndmin=2)
y = np.loadtxt(sys.argv[2])
s2, rho, nu, s2e = map(float, sys.argv[3:7])
if len(sys.argv) > 7 and sys.argv[7] == "grad":
    # Free hyperparameters (wide bounds, no optimizer) so that the gradient has their entries.
    k = ConstantKernel(s2, (1e-300, 1e300)) * Matern(length_scale=rho, nu=nu, length_scale_bounds=(1e-300, 1e300)) + \
        WhiteKernel(s2e, (1e-300, 1e300))
    gp = GaussianProcessRegressor(kernel=k, optimizer=None, normalize_y=False, alpha=0.0).fit(pts, y)
    value, grad = gp.log_marginal_likelihood(gp.kernel_.theta, eval_gradient=True)
    print(repr(float(value)), " ".join(repr(float(g)) for g in grad))
    sys.exit(0)
k = ConstantKernel(s2, "fixed") * Matern(length_scale=rho, nu=nu, length_scale_bounds="fixed") + WhiteKernel(s2e, "fixed")
gp = GaussianProcessRegressor(kernel=k, optimizer=None, normalize_y=False, alpha=0.0).fit(pts, y)
print(repr(gp.log_marginal_likelihood_value_))
