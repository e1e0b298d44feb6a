! Base template of the golden tests: what an operator supplies, with nodenet's placeholders.
frr defaults datacenter
hostname node-1
service integrated-vtysh-config
!
{{ vrfs }}
{{ prefix_lists }}
{{ route_maps }}
interface eth0
 ipv6 nd ra-interval 6
 no ipv6 nd suppress-ra
exit
!
router bgp {{ asn }}
 bgp router-id {{ router_id }}
 neighbor FABRIC peer-group
 neighbor FABRIC remote-as external
 neighbor eth0 interface peer-group FABRIC
 {{ bgp_default }}
 !
 address-family ipv4 unicast
  redistribute connected
  {{ bgp_default_ipv4 }}
 exit-address-family
 !
 address-family ipv6 unicast
  neighbor FABRIC activate
  redistribute connected
  {{ bgp_default_ipv6 }}
 exit-address-family
 !
 address-family l2vpn evpn
  neighbor FABRIC activate
  advertise-all-vni
 exit-address-family
exit
!
{{ bgp_vrfs }}
line vty
!
